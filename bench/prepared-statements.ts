// What DB_PREPARED_STATEMENTS=0 (for PgBouncer in transaction mode) costs: GET /v1/qrs/{id} and POST /v1/qrs,
// API and workers as separate processes, with the hot paths' statements named (1) and unnamed (0),
// alternated (1, 0, 1, 0) so the machine's other load falls on both alike. Its own database.
//   npx tsx bench/prepared-statements.ts      (BENCH_SECONDS=8, BENCH_CONNECTIONS=20)
// With BENCH_STATEMENTS=1 each pass also counts, over BENCH_COUNTED_REQUESTS (200) requests one at a time, the
// statements the API sent per request (each one round trip either way) and how many PostgreSQL had to parse and
// plan (bench/count-statements.ts): figures that hold on a loaded machine. BENCH_COUNT_ONLY=1: those alone, one
// pass per setting, no timed load.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { findQrIn } from '../shared/repositories/qr-transactions.js';
import { salePartitionsOf } from '../shared/repositories/sale-partition.js';
import { saleBodies } from './sale-bodies.js';
import type { ChildProcess } from 'node:child_process';
import { benchEnv, freshAccount, removeRunData, startProcess, statementCountsOf, waitHealthy } from './stack.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench_prepared';
const PORT = Number(process.env.BENCH_PORT ?? 3937);
const env = benchEnv(DATABASE_URL, PORT);
const SERIAL_RUNS = Number(process.env.BENCH_SERIAL_RUNS ?? 4000);
const COUNTED_REQUESTS = Number(process.env.BENCH_COUNTED_REQUESTS ?? 200);
const COUNT_ONLY = process.env.BENCH_COUNT_ONLY === '1';

/** Per request, over COUNTED_REQUESTS sent one at a time: the statements the API sent and those PostgreSQL parsed. */
async function counted(api: ChildProcess, send: (i: number) => Promise<void>): Promise<string | undefined> {
  const before = await statementCountsOf(api);
  if (!before) return undefined;
  for (let i = 0; i < COUNTED_REQUESTS; i++) await send(i);
  const after = (await statementCountsOf(api))!;
  const per = (n: number) => Math.round((n / COUNTED_REQUESTS) * 100) / 100;
  return `${per(after.statements - before.statements)} | ${per(after.parsed - before.parsed)}`;
}

/**
 * GET /v1/qrs/{id}'s statement alone on one connection, named and unnamed in alternating blocks of 200 (so
 * the machine's other load falls on both): the server's parse and plan on every unnamed run is the difference.
 */
async function serialStatement(ids: string[], merchantId: string): Promise<{ named: number; unnamed: number }> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const total = { named: 0, unnamed: 0 };
  try {
    for (let i = 0; i < SERIAL_RUNS; i++) {
      const named = Math.floor(i / 200) % 2 === 0;
      const values = [ids[i % ids.length]!, merchantId, 'development'];
      // The sales were just made: each in this month's partition, the first its id names.
      const statement = findQrIn(salePartitionsOf('id', values[0]!)[0]!);
      const start = performance.now();
      await client.query(named ? { name: statement.name, text: statement.text, values } : { text: statement.text, values });
      total[named ? 'named' : 'unnamed'] += performance.now() - start;
    }
  } finally {
    await client.end();
  }
  const per = (ms: number) => Math.round((ms / (SERIAL_RUNS / 2)) * 1000) / 1000;
  return { named: per(total.named), unnamed: per(total.unnamed) };
}

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(options: { path: () => string; method: 'GET' | 'POST'; headers: () => Record<string, string>; body?: () => string }): Promise<Figures> {
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [{ method: options.method, setupRequest: (req) => ({ ...req, path: options.path(), headers: options.headers(), body: options.body?.() }) }],
  });
  return { requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const account = await freshAccount(env);
  const body = saleBodies(account.storeUid);
  const postHeaders = () => ({ 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID(), 'content-type': 'application/json' });
  const rows: string[] = [];
  const counts: string[] = [];
  const base = `http://127.0.0.1:${PORT}`;
  try {
    for (const named of COUNT_ONLY ? ['1', '0'] : ['1', '0', '1', '0']) {
      const workers = startProcess('../bin/worker.ts', env, { DB_PREPARED_STATEMENTS: named });
      const api = startProcess('../bin/web.ts', env, { DB_PREPARED_STATEMENTS: named });
      try {
        await waitHealthy(`http://127.0.0.1:${PORT}/health`);
        const made: string[] = [];
        const postCounts = await counted(api, async () => {
          const res = await fetch(`${base}/v1/qrs`, { method: 'POST', headers: postHeaders(), body: body() });
          if (res.status !== 201) throw new Error(`POST /v1/qrs answered ${res.status}`);
          made.push(((await res.json()) as { qr_id: string }).qr_id);
        });
        const getCounts = await counted(api, async (i) => {
          const res = await fetch(`${base}/v1/qrs/${made[i % made.length]!}`, { headers: { 'X-API-Key': account.apiKey } });
          if (res.status !== 200) throw new Error(`GET /v1/qrs/{id} answered ${res.status}`);
          await res.arrayBuffer();
        });
        if (postCounts && getCounts) counts.push(`| POST /v1/qrs | ${named} | ${postCounts} |`, `| GET /v1/qrs/{id} | ${named} | ${getCounts} |`);
        if (COUNT_ONLY) continue;
        await load({ method: 'POST', path: () => '/v1/qrs', headers: postHeaders, body }); // warm-up
        const post = await load({ method: 'POST', path: () => '/v1/qrs', headers: postHeaders, body });
        const db = new pg.Client({ connectionString: DATABASE_URL });
        await db.connect();
        const ids = (await db.query<{ id: string }>('SELECT id FROM qr_transactions ORDER BY random() LIMIT 10000')).rows.map((r) => r.id);
        await db.end();
        const get = await load({ method: 'GET', path: () => `/v1/qrs/${ids[Math.floor(Math.random() * ids.length)]!}`, headers: () => ({ 'X-API-Key': account.apiKey }) });
        for (const [route, f] of [
          ['POST /v1/qrs', post],
          ['GET /v1/qrs/{id}', get],
        ] as const)
          rows.push(`| ${route} | ${named} | ${f.requestsPerSecond} | ${f.p50} | ${f.p99} | ${f.non2xx} |`);
        console.error(rows.slice(-2).join('\n'));
      } finally {
        api.kill('SIGTERM');
        workers.kill('SIGTERM');
        await Promise.all([api, workers].map((p) => (p.exitCode === null ? new Promise((resolve) => p.once('exit', resolve)) : Promise.resolve())));
      }
    }
    if (counts.length > 0)
      console.log(
        `Per request, ${COUNTED_REQUESTS} one at a time (the first of a connection parses a named statement once):\n\n| route | DB_PREPARED_STATEMENTS | statements sent | parsed and planned by PostgreSQL |\n|---|---|---|---|\n${counts.join('\n')}\n`,
      );
    if (COUNT_ONLY) return;
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    const ids = (await db.query<{ id: string }>('SELECT id FROM qr_transactions ORDER BY random() LIMIT 1000')).rows.map((r) => r.id);
    const merchant = (await db.query<{ merchant_id: string }>('SELECT merchant_id FROM qr_transactions LIMIT 1')).rows[0]!.merchant_id;
    await db.end();
    const serial = await serialStatement(ids, merchant);
    console.log(`GET /v1/qrs/{id}'s statement, serial on one connection: ${serial.named} ms named, ${serial.unnamed} ms unnamed (mean of ${SERIAL_RUNS / 2} each)\n`);
    console.log(`| route | DB_PREPARED_STATEMENTS | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|\n${rows.join('\n')}`);
  } finally {
    await removeRunData(env);
    const admin = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(DATABASE_URL).pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  }
}

await main();
