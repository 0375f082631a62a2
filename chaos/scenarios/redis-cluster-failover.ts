import { randomUUID } from 'node:crypto';
import { hashTagged } from '../../shared/platform/config.js';
import { shardPrefixes } from '../../shared/platform/queue-shards.js';
import { confirmQr, postQr, saleBody, startServices, waitFor, type ChaosContext, type Services } from '../chaos-context.js';
import type { Answer } from '../http-call.js';
import { answerLabel, tally } from '../http-call.js';
import { startOwnRedisCluster } from '../own-redis-cluster.js';
import { postsThroughOutage, type PostsThroughOutage } from '../posts-through-outage.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface RedisClusterFailoverOptions {
  /** POST /v1/qrs per second, open loop. */
  rate: number;
  /** QRs confirmed at the moment the master dies: their stamp jobs are in flight through the failover. */
  confirms: number;
  /** QUEUE_SHARDS (issue #40): with 3, the killed master holds shard 0 (its job schedulers), a third of the render lanes and of the service's key groups. */
  queueShards: number;
}

/**
 * An API and a worker process on a Redis Cluster of the run's own (3 masters, 3 replicas, loopback). Under a
 * stream of POST /v1/qrs, and with `confirms` confirmations just made, the master serving queue shard 0 (its
 * job schedulers, and its share of the render lanes and of the service's keys) is killed with SIGKILL; its replica takes over. Afterwards: every 201 is in PostgreSQL
 * (a 201 carries the rendered QR: its render job ran), the other answers are 503 error objects and none is a
 * 500 (issue #38: a render job running when the master died lost its reply and answered 500
 * `qr_render_failed`; now it runs again, or its request answers 503), POSTs get 201 again with no restart,
 * every confirmed QR is INVOICED once (one live invoice, one PAC stamp each).
 */
export async function redisClusterFailover(ctx: ChaosContext, options: RedisClusterFailoverOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const cluster = await startOwnRedisCluster();
  let services: Services | undefined;
  let run: PostsThroughOutage | undefined;
  try {
    services = await startServices(ctx, 'cluster', { REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_SHARDS: String(options.queueShards) });
    const svc = services;
    const shard0 = shardPrefixes(hashTagged(svc.queuePrefix), options.queueShards)[0]!;
    const qrs: { id: string; content: string }[] = [];
    for (let i = 0; i < options.confirms; i++) {
      const res = await postQr(ctx, svc.baseUrl, saleBody(ctx), randomUUID());
      if (res.status !== 201) throw new Error(`QR before the failover not created: ${answerLabel(res)}`);
      const body = res.body as { qr_id: string; qr_content: string };
      qrs.push({ id: body.qr_id, content: body.qr_content });
    }
    const pacCallsBefore = ctx.pac.calls.length;
    const confirmAnswers: Answer[] = [];
    let confirming: Promise<unknown> = Promise.resolve();
    let killed = 0;
    let takeoverMs = 0;
    run = await postsThroughOutage(ctx, svc, options.rate, 0, {
      down: async () => {
        killed = await cluster.masterOf(shard0);
        confirming = Promise.all(qrs.map(async (qr) => confirmAnswers.push(await confirmQr(svc.baseUrl, qr.content))));
        await cluster.kill(killed);
      },
      up: async () => {
        takeoverMs = await cluster.waitTakeover(killed);
      },
    });
    await confirming;
    // A buyer whose confirmation got no 202 (Redis failing over) confirms again.
    const retried: Answer[] = [];
    for (const qr of qrs) {
      const row = await ctx.db('invoices').where({ transaction_id: qr.id }).first('id');
      if (!row) retried.push(await confirmQr(svc.baseUrl, qr.content));
    }
    const ids = qrs.map((q) => q.id);
    const invoicedIn = await waitFor(
      async () => Number((await ctx.db('qr_transactions').whereIn('id', ids).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n) === ids.length,
      60_000,
    );
    const invoices = (await ctx.db('invoices').whereIn('transaction_id', ids).select('transaction_id', 'status', 'uuid')) as {
      transaction_id: string;
      status: string;
      uuid: string | null;
    }[];
    const live = invoices.filter((i) => i.status !== 'REFUSED');
    const perQr = new Map<string, number>();
    for (const i of live) perQr.set(i.transaction_id, (perQr.get(i.transaction_id) ?? 0) + 1);
    const ourUuids = new Set(live.map((i) => i.uuid));
    const stamps = ctx.pac.calls
      .slice(pacCallsBefore)
      .filter((c) => c.outcome.startsWith('stamped'))
      .map((c) => c.uuid);
    const { fired, posts, created, inDb, bad, refused, backMs } = run;
    const serverErrors = posts.filter((e) => e.answer.status === 500);
    return {
      scenario: `Redis Cluster: kill -9 the master of queue shard 0 at ${options.rate} POST/s, ${options.confirms} stamps in flight`,
      counts: `${fired} POSTs (${tally(posts.map((e) => answerLabel(e.answer)))}); confirms ${tally(confirmAnswers.map(answerLabel))}, again ${retried.length ? tally(retried.map(answerLabel)) : 'none'}; ${stamps.length} PAC stamps`,
      checks: [
        check('replica took over the killed master', !(await cluster.masters()).includes(killed), `${(takeoverMs / 1000).toFixed(1)} s`),
        check('no 201 lost (every 201 in PostgreSQL, its QR rendered)', inDb === created.length, `${inDb}/${created.length}`),
        check('no 500 answer (a render lost with its master runs again or answers 503)', serverErrors.length === 0, `${serverErrors.length} × 500`),
        check('errors only as 503 error objects', bad.length === 0, bad.length ? tally(bad.map((e) => answerLabel(e.answer))) : `${refused.length} × 503`),
        check('POST /v1/qrs back within 30 s of the takeover, no restart', backMs !== undefined, backMs === undefined ? 'never' : `${(backMs / 1000).toFixed(1)} s`),
        check('every confirmed QR INVOICED within 60 s', invoicedIn !== undefined, invoicedIn === undefined ? 'not all' : `${(invoicedIn / 1000).toFixed(1)} s`),
        check('one live invoice per QR', live.length === ids.length && [...perQr.values()].every((n) => n === 1), `${live.length} live for ${ids.length} QRs`),
        check(
          'no CFDI stamped twice at the PAC',
          stamps.length === live.length && stamps.every((u) => u !== undefined && ourUuids.has(u)),
          `${stamps.length} stamps for ${live.length} invoices`,
        ),
        check('no process crashed', svc.crashes().length === 0, svc.crashes().join('; ')),
      ],
      timings: `takeover ${(takeoverMs / 1000).toFixed(1)} s; first 201 ${backMs === undefined ? 'never' : `${(backMs / 1000).toFixed(1)} s`} after it`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await run?.history.save(`${ctx.workDir}/redis-cluster-history.jsonl`);
    await services?.stop();
    await cluster.stop();
  }
}
