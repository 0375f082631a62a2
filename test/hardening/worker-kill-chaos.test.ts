import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { killWorkerMidStamp } from '../../chaos/scenarios/kill-worker-mid-stamp.js';
import { config } from '../../shared/platform/config.js';
import { harness } from '../helpers/harness.js';
import { keysMatching } from '../helpers/redis-keys.js';

// `npm run chaos`'s most valuable scenario, small enough for CI: the real API and worker processes (their own
// queue prefix on the suite's Redis and database), the suite's fake PAC counting stamps. Most of the time is
// BullMQ's stall detection (30 s lock, 30 s check) after the last kill.
describe('kill -9 the stamping worker mid-stamp (chaos, issue #8)', function () {
  this.timeout(300_000);
  let workDir: string;
  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'aftest-chaos-'));
  });
  after(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('5 SIGKILLs while buyers confirm: every confirmed QR INVOICED once, one UUID and folio each, one PAC stamp each', async () => {
    const cfg = config();
    const result = await killWorkerMidStamp(
      {
        db: harness().deps.db,
        databaseUrl: cfg.databaseUrl,
        redisUrl: cfg.redisUrl,
        account: await harness().bootstrap(),
        pac: harness().pac,
        workDir,
      },
      { kills: 5, settleMs: 150_000 },
    );
    const failed = result.checks.filter((c) => !c.ok);
    expect(failed, `${result.counts}; ${result.timings}`).to.deep.equal([]);
    expect(result.counts).to.match(/[1-9]\d* QRs confirmed/);
    // The scenario's processes had a queue prefix of their own on the suite's Redis: nothing of it is left.
    const left = await keysMatching(harness().redis, `afchaos${process.pid}*`);
    expect(left.length, `keys left, e.g. ${left[0] ?? ''}`).to.equal(0);
  });
});
