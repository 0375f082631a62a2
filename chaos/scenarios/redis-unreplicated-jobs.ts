import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { hashTagged } from '../../shared/platform/config.js';
import { jobId } from '../../shared/platform/jobs.js';
import { shardOfJob } from '../../shared/platform/queues.js';
import { shardPrefixes } from '../../shared/platform/queue-shards.js';
import { confirmQr, postQr, saleBody, startServices, waitFor, type ChaosContext, type Services } from '../chaos-context.js';
import { answerLabel, tally, type Answer } from '../http-call.js';
import { startOwnRedisCluster, type OwnRedisCluster } from '../own-redis-cluster.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface RedisUnreplicatedJobsOptions {
  /** Sales created, then confirmed, while the victim's replica is cut off. */
  sales: number;
}

const SHARDS = 3;

/** The replica of the master listening on `masterPort`, as CLUSTER NODES tells. */
async function replicaOf(cluster: OwnRedisCluster, masterPort: number): Promise<number> {
  const node = new Redis({ host: '127.0.0.1', port: masterPort });
  try {
    const lines = String(await node.cluster('NODES')).split('\n');
    const masterId = lines.find((l) => l.includes(`:${masterPort}@`))!.split(' ')[0]!;
    const replica = lines.find((l) => l.split(' ')[3] === masterId && l.includes('slave'));
    if (!replica) throw new Error(`no replica of ${masterPort} in ${cluster.ports.join(',')}`);
    return Number(/:(\d+)@/.exec(replica.split(' ')[1]!)![1]);
  } finally {
    node.disconnect();
  }
}

/**
 * Redis replicates asynchronously: a job the service added and acknowledged (a confirmation's 202 says its
 * stamp job is queued) is on its master alone until the replica has read it. This scenario makes that window as
 * wide as it gets: on a Redis Cluster of the run's own (3 masters, 3 replicas, QUEUE_SHARDS=3) one master's
 * replica is cut off (its `masterauth` set to a wrong password and its link to the master killed, so it cannot
 * resync; `cluster-replica-validity-factor 0` so it may still be promoted), sales are created and confirmed
 * with the worker stopped (their stamp jobs wait in the queues, a third of them on the cut-off master), the
 * master is killed and its stale replica takes over: those jobs are gone. The worker starts again; the stamp
 * sweep finds the STAMPING invoices in PostgreSQL and queues them again: every confirmed sale is INVOICED once,
 * with one PAC stamp.
 */
export async function redisUnreplicatedJobs(ctx: ChaosContext, options: RedisUnreplicatedJobsOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const cluster = await startOwnRedisCluster();
  let services: Services | undefined;
  const client = new Cluster(cluster.seeds.split(',').map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })));
  client.on('error', () => undefined);
  const queues: Queue[] = [];
  try {
    services = await startServices(ctx, 'unreplicated', { REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_SHARDS: String(SHARDS) });
    const svc = services;
    const prefixes = shardPrefixes(hashTagged(svc.queuePrefix), SHARDS);
    for (const prefix of prefixes) queues.push(new Queue('stamp', { connection: client, prefix }));
    // The victim: shard 1's master (shard 0's holds the job schedulers, which are not what this is about).
    const victim = await cluster.masterOf(prefixes[1]!);
    const replica = await replicaOf(cluster, victim);
    const cut = new Redis({ host: '127.0.0.1', port: replica });
    await cut.config('SET', 'masterauth', `wrong-${randomUUID()}`);
    await cut.config('SET', 'cluster-replica-validity-factor', '0');
    await cut.call('CLIENT', 'KILL', 'TYPE', 'master');
    const linkDown = await waitFor(async () => (await cut.info('replication')).includes('master_link_status:down'), 10_000);

    // Sales acknowledged (201) while the replica is cut off.
    const posts: Answer[] = [];
    const sales: { id: string; content: string }[] = [];
    for (let i = 0; i < options.sales; i++) {
      const res = await postQr(ctx, svc.baseUrl, saleBody(ctx), randomUUID());
      posts.push(res);
      if (res.status === 201) {
        const body = res.body as { qr_id: string; qr_content: string };
        sales.push({ id: body.qr_id, content: body.qr_content });
      }
    }
    // The worker stops: the confirmations' stamp jobs wait in the queues, acknowledged by their 202.
    await svc.worker.stop();
    const confirms: Answer[] = [];
    for (const sale of sales) confirms.push(await confirmQr(svc.baseUrl, sale.content));
    const confirmed = sales.filter((_, i) => confirms[i]!.status === 202).map((s) => s.id);
    const invoices = (await ctx.db('invoices').whereIn('transaction_id', confirmed).select('id', 'transaction_id')) as { id: string; transaction_id: string }[];
    const onVictim = invoices.filter((i) => shardOfJob('stamp-invoice', { invoiceId: i.id }, SHARDS) === 1);
    const queuedBefore = await Promise.all(onVictim.map((i) => queues[1]!.getJob(jobId.stampInvoice(i.id))));
    const replicaKeys = Number(await cut.dbsize());

    await cluster.kill(victim);
    const takeoverMs = await cluster.waitTakeover(victim);
    const queuedAfter = await Promise.all(onVictim.map((i) => queues[1]!.getJob(jobId.stampInvoice(i.id))));
    const lost = queuedBefore.filter((job, i) => job !== undefined && queuedAfter[i] === undefined).length;
    cut.disconnect();

    const pacCallsBefore = ctx.pac.calls.length;
    await svc.worker.start();
    const invoicedIn = await waitFor(
      async () => Number((await ctx.db('qr_transactions').whereIn('id', confirmed).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n) === confirmed.length,
      90_000,
    );
    const live = (await ctx.db('invoices').whereIn('transaction_id', confirmed).whereNot({ status: 'REFUSED' }).select('transaction_id', 'uuid')) as {
      transaction_id: string;
      uuid: string | null;
    }[];
    const perSale = new Map<string, number>();
    for (const i of live) perSale.set(i.transaction_id, (perSale.get(i.transaction_id) ?? 0) + 1);
    const stamps = ctx.pac.calls
      .slice(pacCallsBefore)
      .filter((c) => c.outcome.startsWith('stamped'))
      .map((c) => c.uuid);
    const ours = new Set(live.map((i) => i.uuid));
    const inDb = Number(
      (
        await ctx
          .db('qr_transactions')
          .whereIn(
            'id',
            sales.map((s) => s.id),
          )
          .count({ n: '*' })
          .first()
      )?.n,
    );
    return {
      scenario: `Redis Cluster: jobs acknowledged on a master whose replica is cut off, then the master killed (${options.sales} sales)`,
      counts: `${posts.length} POSTs (${tally(posts.map(answerLabel))}); confirms ${tally(confirms.map(answerLabel))}; ${onVictim.length} stamp jobs on the victim's shard, ${lost} of them gone after the takeover (the stale replica held ${replicaKeys} keys); ${stamps.length} PAC stamps`,
      checks: [
        check("the replica's link was cut before the writes", linkDown !== undefined, linkDown === undefined ? 'still up' : `${Math.round(linkDown)} ms`),
        check('acknowledged stamp jobs were lost with the master (the window exercised)', lost > 0, `${lost}/${onVictim.length}`),
        check('every 201 in PostgreSQL', inDb === sales.length, `${inDb}/${sales.length}`),
        check(
          'every confirmed sale INVOICED within 90 s (the stamp sweep found the lost ones)',
          invoicedIn !== undefined,
          invoicedIn === undefined ? 'not all' : `${(invoicedIn / 1000).toFixed(1)} s`,
        ),
        check('one live invoice per sale', live.length === confirmed.length && [...perSale.values()].every((n) => n === 1), `${live.length} live for ${confirmed.length}`),
        check(
          'no CFDI stamped twice at the PAC',
          stamps.length === live.length && stamps.every((u) => u !== undefined && ours.has(u)),
          `${stamps.length} stamps for ${live.length} invoices`,
        ),
        check('no process crashed', svc.crashes().length === 0, svc.crashes().join('; ')),
      ],
      timings: `takeover ${(takeoverMs / 1000).toFixed(1)} s; all invoiced ${invoicedIn === undefined ? 'never' : `${(invoicedIn / 1000).toFixed(1)} s`} after the worker's restart`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    client.disconnect();
    await services?.stop();
    await cluster.stop();
  }
}
