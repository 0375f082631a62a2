// Issue #40's spread, as `npm run bench` prints it: the service with QUEUE_SHARDS=3 on a Redis Cluster of the run's
// own (3 masters, 3 replicas on loopback, chaos/own-redis-cluster.ts) as 2 API + 2 worker processes, sales of
// BENCH_CLUSTER_STORES stores (8, each with its own API key) BENCH_CLUSTER_CONCURRENCY (50) at a time until
// BENCH_CLUSTER_SALES (2,000), every fourth one previewed, confirmed and stamped by its buyer. Per master: the
// commands it ran (INFO commandstats, after CONFIG RESETSTAT), its share of all of them, the same without its
// idle rate (read for BENCH_CLUSTER_IDLE_SECONDS, 5, before the sales: the job schedulers and the workers' polls),
// and its memory. Counts, not timings: they hold on a loaded machine.
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { Redis } from 'ioredis';
import { startOwnRedisCluster } from '../chaos/own-redis-cluster.js';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { loadConfig } from '../shared/platform/config.js';
import { knexConfig } from '../shared/platform/db.js';
import { BUYER } from '../test/helpers/buyer.js';
import { observerDatabaseUrl } from './lean/cpu.js';
import { redisUse, saleBody, saleHeaders, startLayout, type SaleAccount } from './sale-commands.js';
import type { ServiceEnv } from './stack.js';

const STORES = Number(process.env.BENCH_CLUSTER_STORES ?? 8);
const SALES = Number(process.env.BENCH_CLUSTER_SALES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CLUSTER_CONCURRENCY ?? 50);
const IDLE_SECONDS = Number(process.env.BENCH_CLUSTER_IDLE_SECONDS ?? 5);
/** One sale in this many is confirmed and stamped. */
const CONFIRM_EVERY = 4;

export interface MasterShare {
  port: number;
  /** Commands it ran during the sales, and its share of all the masters' (%). */
  commands: number;
  sharePercent: number;
  /** The same less its idle rate times the run's length: what the sales themselves cost it. */
  ownCommands: number;
  ownSharePercent: number;
  idlePerSecond: number;
  usedMemoryMb: number;
  /** Its five busiest commands. */
  top: string;
}

export interface ClusterShares {
  stores: number;
  sales: number;
  confirmed: number;
  seconds: number;
  /** Every master's commands over the sales (a quarter of them stamped), their idle rate taken away. */
  ownCommandsPerSale: number;
  masters: MasterShare[];
}

async function usedMemoryMb(node: Redis): Promise<number> {
  return Math.round(Number(/used_memory:(\d+)/.exec(await node.info('memory'))![1]) / 104_857.6) / 10;
}

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

/** `count` sales round-robin over the stores and APIs, every CONFIRM_EVERY-th of each store previewed and confirmed as its buyer would. Answers the confirmed QRs' ids. */
async function sellAndConfirm(apis: string[], accounts: SaleAccount[], count: number): Promise<string[]> {
  const confirmed: string[] = [];
  let next = 0;
  const post = async (url: string, headers: Record<string, string>, body: string, expected: number) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    const answer = (await res.json()) as Record<string, unknown>;
    if (res.status !== expected) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const one = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const store = i % accounts.length;
      const account = accounts[store]!;
      const api = apis[i % apis.length]!;
      // Behind one load balancer (TRUST_PROXY=1): each store's POS from an address of its own, each buyer from
      // another, as in service (one address for all would put every buyer's per-IP counter on one master).
      const sale = await post(`${api}/v1/qrs`, { ...saleHeaders(account), 'x-forwarded-for': `192.0.2.${store + 1}` }, saleBody(account), 201);
      if (Math.floor(i / accounts.length) % CONFIRM_EVERY !== 0) continue;
      const link = new URL(String(sale.qr_content));
      const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
      const json = { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` };
      const preview = await post(`${api}/v1/public/qrs/preview`, json, JSON.stringify(request), 200);
      await post(`${api}/v1/public/qrs/confirm`, json, JSON.stringify({ ...request, review_digest: preview.review_digest }), 202);
      confirmed.push(String(sale.qr_id));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  return confirmed;
}

/**
 * The run on `env` (its database, with `account` made by freshAccount, and the fakes' URLs): STORES - 1 more
 * accounts are made beside it, the cluster and the processes are the run's own and gone when it returns.
 */
export async function benchClusterShares(env: ServiceEnv, account: SaleAccount): Promise<ClusterShares> {
  const cluster = await startOwnRedisCluster();
  const db = knexFactory(knexConfig(observerDatabaseUrl(env.DATABASE_URL)));
  const clusterEnv: ServiceEnv = {
    ...env,
    REDIS_CLUSTER_NODES: cluster.seeds,
    QUEUE_SHARDS: '3',
    QUEUE_PREFIX: `${env.QUEUE_PREFIX}cl`,
    // The production period (a test's shorter one would weigh on shard 0's idle rate).
    WEBHOOK_DISPATCH_MS: '1000',
    TRUST_PROXY: '1',
  };
  let nodes: { port: number; redis: Redis }[] = [];
  try {
    nodes = (await cluster.masters()).map((port) => ({ port, redis: new Redis({ port, host: '127.0.0.1' }) }));
    const accounts: SaleAccount[] = [account];
    for (let i = 1; i < STORES; i++) {
      const store = await bootstrapAccount(db, loadConfig(clusterEnv), `bench-store-${i}-${randomUUID()}`);
      // A Serie of its own, as a chain's stores under one RFC would have: with one Serie their CFDIs, numbered
      // alike, come out byte for byte the same (twins, sealed again: workers/stamp-invoice.ts), not what a
      // deployment usually does.
      await db('merchant_csds')
        .where({ merchant_id: store.merchantId })
        .update({ serial_number_prefix: `B${i}` });
      accounts.push(store);
    }
    const layout = await startLayout(clusterEnv, 2, 2);
    try {
      // A sale of every store first: API keys' principals cached, the workers' CSDs read, as in a running service.
      await untilInvoiced(db, await sellAndConfirm(layout.apis, accounts, accounts.length));
      await Promise.all(nodes.map((n) => n.redis.config('RESETSTAT')));
      const idleFrom = await Promise.all(nodes.map((n) => redisUse(n.redis)));
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const idleTo = await Promise.all(nodes.map((n) => redisUse(n.redis)));
      const started = performance.now();
      const confirmed = await sellAndConfirm(layout.apis, accounts, SALES);
      await untilInvoiced(db, confirmed);
      const seconds = (performance.now() - started) / 1000;
      const after = await Promise.all(nodes.map((n) => redisUse(n.redis)));
      const rows = await Promise.all(
        nodes.map(async (n, i) => {
          // A reading's two INFOs are commands of their own, counted in the next one.
          const idlePerSecond = Math.max(0, idleTo[i]!.commands - idleFrom[i]!.commands - 2) / IDLE_SECONDS;
          const commands = after[i]!.commands - idleTo[i]!.commands;
          const top = Object.entries(after[i]!.byCommand)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([name, calls]) => `${name} ${calls}`)
            .join(', ');
          return {
            port: n.port,
            commands,
            ownCommands: Math.max(0, Math.round(commands - idlePerSecond * seconds)),
            idlePerSecond: Math.round(idlePerSecond),
            usedMemoryMb: await usedMemoryMb(n.redis),
            top,
          };
        }),
      );
      const all = rows.reduce((sum, r) => sum + r.commands, 0);
      const own = rows.reduce((sum, r) => sum + r.ownCommands, 0);
      return {
        stores: STORES,
        sales: SALES,
        confirmed: confirmed.length,
        seconds: Math.round(seconds * 10) / 10,
        ownCommandsPerSale: Math.round((own / SALES) * 100) / 100,
        masters: rows.map((r) => ({ ...r, sharePercent: percent(r.commands, all), ownSharePercent: percent(r.ownCommands, own) })),
      };
    } finally {
      await layout.stop();
    }
  } finally {
    for (const n of nodes) n.redis.disconnect();
    await db.destroy();
    await cluster.stop();
  }
}

/** Until every confirmed QR is INVOICED and its e-mail sent (a 100 ms poll on the observer's connection; 5 minutes at most). */
async function untilInvoiced(db: knexFactory.Knex, ids: string[]): Promise<void> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const { rows } = (await db.raw(
      `SELECT count(*) AS n FROM qr_transactions t JOIN invoices i ON i.transaction_id = t.id
        WHERE t.id = ANY(?::text[]) AND t.status = 'INVOICED' AND i.email_sent_at IS NOT NULL`,
      [`{${ids.join(',')}}`],
    )) as { rows: { n: string }[] };
    if (Number(rows[0]!.n) >= ids.length) return;
    if (performance.now() > deadline) {
      const { rows: left } = (await db.raw(
        `SELECT t.status, i.status AS invoice_status, i.email_sent_at IS NOT NULL AS emailed, count(*) AS n
           FROM qr_transactions t LEFT JOIN invoices i ON i.transaction_id = t.id
          WHERE t.id = ANY(?::text[]) GROUP BY 1, 2, 3`,
        [`{${ids.join(',')}}`],
      )) as { rows: unknown[] };
      throw new Error(`only ${rows[0]!.n} of ${ids.length} confirmed sales invoiced and e-mailed after 300 s: ${JSON.stringify(left)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The table's lines: one per master, busiest first, then the bounds. */
export function clusterShareLines(c: ClusterShares): string[] {
  const masters = [...c.masters].sort((a, b) => b.ownSharePercent - a.ownSharePercent);
  return [
    `Redis Cluster, 3 masters, QUEUE_SHARDS=3, 2 API + 2 workers: ${c.sales} sales of ${c.stores} stores, ${c.confirmed} of them stamped, in ${c.seconds} s; ${c.ownCommandsPerSale} commands per sale`,
    ...masters.map(
      (m) => `   master :${m.port}: ${m.ownSharePercent} % of the sales' commands (${m.sharePercent} % with its idle ${m.idlePerSecond}/s), ${m.usedMemoryMb} MB; ${m.top}`,
    ),
    `   busiest master ${masters[0]?.ownSharePercent ?? 0} % (target <= 45 %)`,
  ];
}
