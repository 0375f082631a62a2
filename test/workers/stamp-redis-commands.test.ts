import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { BUYER } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { startCountedRedisStack, type CountedRedisStack } from '../helpers/counted-redis-stack.js';
import type { StackOnRedis } from '../helpers/stack-on-redis.js';

/**
 * Issue #40: Redis commands per CFDI, from the buyer's preview to the e-mail sent, counted by a redis-server of
 * the test's own (INFO commandstats) with one API and its workers on it: the buyer's routes' rate limits, the
 * stamp batch (shared/invoices/stamp-batcher.ts, workers/stamp-invoices.ts) and the e-mail batch. It was ~93
 * with a stamp job and an e-mail job per CFDI (docs/performance.md). The periodic jobs are set far apart.
 */
describe('Redis commands per CFDI stay within the bound (issue #40)', function () {
  this.timeout(180_000);
  const BOUND = 30;
  let redisStack: CountedRedisStack;
  let stack: StackOnRedis;
  let account: BootstrapResult;
  let validated: boolean;

  before(async () => {
    account = await harness().bootstrap();
    redisStack = await startCountedRedisStack('cfdicmds');
    stack = redisStack.stack;
    // Our side of stamping: the fake PAC's XSD check (xmllint, seconds under load) is not what is counted.
    validated = harness().pac.validates;
    harness().pac.validates = false;
  });

  after(async () => {
    harness().pac.validates = validated;
    await redisStack?.close();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** `count` QRs made (not counted), then confirmed by `concurrency` buyers at a time (preview and confirm); waits until each is stamped and e-mailed. */
  async function confirmAndWait(count: number, concurrency: number, counted: () => Promise<void>): Promise<void> {
    const links: URL[] = [];
    for (let i = 0; i < count; i++) {
      const created = await post('/v1/qrs', qrBody(account.storeUid), qrHeaders(account, randomUUID()));
      expect(created.status).to.equal(201);
      links.push(new URL(created.body.qr_content as string));
    }
    await counted();
    let next = 0;
    const buyer = async () => {
      while (next < links.length) {
        const link = links[next++]!;
        const request = {
          v: link.searchParams.get('v'),
          t: link.searchParams.get('t'),
          m: link.searchParams.get('m'),
          customer: { ...BUYER, email: `cmds-${randomUUID()}@example.test` },
        };
        const reviewed = await post('/v1/public/qrs/preview', request);
        expect(reviewed.status).to.equal(200);
        expect((await post('/v1/public/qrs/confirm', { ...request, review_digest: reviewed.body.review_digest })).status).to.equal(202);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, buyer));
    const tokens = links.map((l) => l.searchParams.get('t')!);
    // No event spans a batch's stamps and its mails: the rows say when all are done (the bench polls the same way).
    for (let waited = 0; ; waited += 50) {
      const row = (await harness()
        .deps.db('invoices as i')
        .join('qr_transactions as q', 'q.id', 'i.transaction_id')
        .whereIn('q.token', tokens)
        .where('i.status', 'ACTIVE')
        .whereNotNull('i.email_sent_at')
        .count({ n: '*' })
        .first()) as { n: string };
      if (Number(row.n) === count) return;
      if (waited > 120_000) throw new Error(`only ${row.n} of ${count} stamped and e-mailed`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Commands per CFDI over `count` confirmations, by name (for the message when the bound is broken). */
  async function perCfdi(count: number, concurrency: number): Promise<{ total: number; byCommand: Record<string, number> }> {
    let before: Record<string, number> = {};
    await confirmAndWait(count, concurrency, async () => {
      await redisStack.resetStats();
      before = await redisStack.commandCounts();
    });
    const after = await redisStack.commandCounts();
    const byCommand = Object.fromEntries(Object.entries(after).map(([name, n]) => [name, Math.round(((n - (before[name] ?? 0)) / count) * 100) / 100]));
    // This measurement's own INFO and CONFIG are left out.
    for (const own of ['info', 'config|resetstat', 'config']) delete byCommand[own];
    return { total: Math.round(Object.values(byCommand).reduce((a, b) => a + b, 0) * 100) / 100, byCommand };
  }

  it(`buyers confirming ten at a time: at most ${BOUND} commands per CFDI, e-mail included`, async () => {
    await confirmAndWait(3, 3, () => Promise.resolve()); // warm-up: the counters' keys of this minute, the workers' first fetches
    const { total, byCommand } = await perCfdi(40, 10);
    process.stdout.write(`      Redis commands per CFDI, 10 buyers at a time: ${total} ${JSON.stringify(byCommand)}\n`);
    expect(total, JSON.stringify(byCommand)).to.be.at.most(BOUND);
  });

  it('one buyer at a time (a batch per confirmation): one BullMQ job per CFDI at worst, not two', async () => {
    const { total, byCommand } = await perCfdi(10, 1);
    process.stdout.write(`      Redis commands per CFDI, one buyer at a time: ${total} ${JSON.stringify(byCommand)}\n`);
    // ~64 for the stamp batch's job (its scripts' own commands counted) and 8 for the buyer's routes; 132 with an e-mail job too.
    expect(total, JSON.stringify(byCommand)).to.be.at.most(80);
  });
});
