import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { startCountedRedisStack, type CountedRedisStack } from '../helpers/counted-redis-stack.js';
import type { StackOnRedis } from '../helpers/stack-on-redis.js';

/**
 * Issue #40: Redis commands per sale, counted by a redis-server of the test's own (INFO commandstats), with one
 * API and its workers on it. The bound holds with one sale at a time, where every render job carries one QR
 * (the worst case: it was 73 per sale with a BullMQ job per render, 4 of it the sale's own counters and cache
 * write). The deployment's periodic jobs are set far apart here, so what is counted is the sales' work and the
 * workers' idle waits; `npm run bench:scale` gives the same counts for 1 + 1 and 2 + 2 processes.
 */
describe('Redis commands per sale stay within the bound (issue #40)', function () {
  this.timeout(120_000);
  /** 7 expected at one sale at a time (3 before the insert and the cache write, 4 for the render); 1 of margin for the workers' idle waits. */
  const BOUND = 8;
  let redisStack: CountedRedisStack;
  let stack: StackOnRedis;
  let account: BootstrapResult;

  before(async () => {
    account = await harness().bootstrap();
    redisStack = await startCountedRedisStack('cmds');
    stack = redisStack.stack;
  });

  after(async () => {
    await redisStack?.close();
  });

  async function sales(count: number, concurrency: number): Promise<void> {
    let next = 0;
    const one = async () => {
      while (next < count) {
        next += 1;
        const res = await fetch(`${stack.baseUrl}/v1/qrs`, {
          method: 'POST',
          headers: { ...qrHeaders(account, randomUUID()), 'content-type': 'application/json' },
          body: JSON.stringify(qrBody(account.storeUid)),
        });
        await res.arrayBuffer();
        expect(res.status).to.equal(201);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, one));
  }

  /** Commands per sale over `count` sales, and the commands by name (for the message when the bound is broken). */
  async function perSale(count: number, concurrency: number): Promise<{ total: number; byCommand: Record<string, number> }> {
    await redisStack.resetStats();
    const before = await redisStack.commandCounts();
    await sales(count, concurrency);
    const after = await redisStack.commandCounts();
    const byCommand = Object.fromEntries(Object.entries(after).map(([name, n]) => [name, Math.round(((n - (before[name] ?? 0)) / count) * 100) / 100]));
    // This measurement's own INFO and CONFIG are left out.
    for (const own of ['info', 'config|resetstat', 'config']) delete byCommand[own];
    return { total: Object.values(byCommand).reduce((a, b) => a + b, 0), byCommand };
  }

  it('one sale at a time (a render job per QR): at most 8 commands per sale, the render 4 of them', async () => {
    await sales(5, 1); // warm-up: the inbox is made, the counters' keys of this minute exist
    const count = 40;
    const { total, byCommand } = await perSale(count, 1);
    expect(total, JSON.stringify(byCommand)).to.be.at.most(BOUND);
    // The render's hand-off: the API's LPUSH and XREAD, the worker's BRPOP and its reply's XADD, one each per sale.
    for (const name of ['lpush', 'brpop', 'xread']) expect(byCommand[name], name).to.be.within(0.9, 1.2);
  });

  it('twenty at a time (render jobs of several QRs): fewer still', async () => {
    const { total, byCommand } = await perSale(100, 20);
    expect(total, JSON.stringify(byCommand)).to.be.at.most(BOUND - 1);
  });
});
