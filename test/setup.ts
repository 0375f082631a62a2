import { startHarness, type Harness } from './helpers/harness.js';

let running: Harness | undefined;

/** Root hooks: one real stack for the whole run (see helpers/harness.ts). */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    running = await startHarness();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await running?.close();
  },
};
