import { expect } from 'chai';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { QUEUES } from '../../../shared/platform/jobs.js';
import { readQueueDepths } from '../../../shared/platform/queue-depths.js';
import { shardPrefixes } from '../../../shared/platform/queue-shards.js';
import { harness } from '../../helpers/harness.js';
import { keysMatching } from '../../helpers/redis-keys.js';
import { shardedSales, type ShardedSales } from '../../helpers/sharded-stack.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

/**
 * QUEUE_SHARDS=3 on the one local Redis: an API and its workers whose queues are split in three. Sales of
 * several stores are created, confirmed and stamped; their jobs land on different shards and all complete.
 */
describe('issue #40: QUEUE_SHARDS=3 on one Redis', function () {
  this.timeout(120_000);
  let stack: StackOnRedis | undefined;
  let sales: ShardedSales | undefined;
  let accounts: BootstrapResult[];
  const prefix = `${process.env.QUEUE_PREFIX ?? 'aftest'}sh`;

  before(async () => {
    accounts = [];
    for (let i = 0; i < 3; i++) accounts.push(await harness().bootstrap());
    stack = await startStackOn(configWith({ QUEUE_PREFIX: prefix, QUEUE_SHARDS: '3' }));
    sales = await shardedSales(stack);
  });

  after(async () => {
    await sales?.close();
    await stack?.close();
  });

  it('sales of three stores are rendered, confirmed and stamped, their jobs spread over the shards', async () => {
    const sold = await Promise.all(accounts.flatMap((account) => Array.from({ length: 4 }, () => sales!.sell(account))));
    // One at a time: each confirmation its own stamp batch (issue #40), named after it, so the batches spread as the jobs of single invoices did.
    const stamped: Awaited<ReturnType<ShardedSales['confirmAndStamp']>>[] = [];
    for (const sale of sold) stamped.push(await sales!.confirmAndStamp(sale));
    expect(stamped.map((s) => s.status)).to.deep.equal(sold.map(() => 'INVOICED'));
    // 12 invoices on one shard of three would be 3 in 177,147.
    expect(new Set(stamped.map((s) => s.shard)).size).to.be.greaterThan(1);
    const prefixes = shardPrefixes(prefix, 3);
    // Each shard's keys under its own prefix; none of the queues' under the bare prefix (only the service's keys and the inboxes).
    const renderKeys = await Promise.all(prefixes.map((p) => keysMatching(stack!.redis, `${p}:render:*`)));
    expect(renderKeys.filter((keys) => keys.length > 0).length, 'shards with render keys').to.be.greaterThan(1);
    expect(await keysMatching(stack!.redis, `${prefix}:stamp:*`)).to.deep.equal([]);
  });

  it('the job schedulers on shard 0 alone: each sweep runs once per period in the deployment', async () => {
    const [first, ...others] = stack!.producers.queues(QUEUES.stamp);
    expect((await first!.getJobSchedulers()).map((s) => s.key)).to.include('sweep-stamping');
    for (const q of others) expect(await q.getJobSchedulers()).to.deep.equal([]);
  });

  it('queue depths count every shard', async () => {
    const [first, second] = stack!.producers.queues(QUEUES.globalInvoice);
    await first!.add('issue-global-invoices', {}, { delay: 3_600_000, jobId: 'depth-a' });
    await second!.add('issue-global-invoices', {}, { delay: 3_600_000, jobId: 'depth-b' });
    const depth = (await readQueueDepths(stack!.producers)).find((d) => d.queue === QUEUES.globalInvoice)!;
    expect(depth.counts.delayed).to.equal(2);
    await Promise.all([first!.remove('depth-a'), second!.remove('depth-b')]);
  });
});
