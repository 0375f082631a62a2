import { jsonAnswers } from './helpers/http.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { nonConformity } from './helpers/openapi-contract.js';

let running: Harness | undefined;

/**
 * Root hooks: one real stack for the whole run (see helpers/harness.ts). At the end, every JSON answer the
 * tests got through call() and callForm() is judged by the OpenAPI document (issue #21): the contract
 * describes what the API really answers, on every route and status the suite reaches.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    running = await startHarness();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await running?.close();
    const problems = [...new Set(jsonAnswers.map((a) => nonConformity(a.method, a.path, a.status, a.body)).filter((p) => p !== undefined))];
    if (problems.length > 0) throw new Error(`${problems.length} kinds of answers do not match the OpenAPI document:\n${problems.join('\n')}`);
  },
};
