// What DB_PREPARED_STATEMENTS=0 (for PgBouncer in transaction mode) costs: GET /v1/qrs/{id} and POST /v1/qrs,
// API and workers as separate processes, with the hot paths' statements named (1) and unnamed (0),
// alternated (1, 0, 1, 0) so the machine's other load falls on both alike. Its own database.
//   npx tsx bench/prepared-statements.ts      (BENCH_SECONDS=8, BENCH_CONNECTIONS=20)
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { FIND_QR } from '../shared/repositories/qr-transactions.js';
import { saleBodies } from './sale-bodies.js';
import { benchEnv, freshAccount, removeRunData, startProcess, waitHealthy } from './stack.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench_prepared';
const PORT = Number(process.env.BENCH_PORT ?? 3937);
const env = benchEnv(DATABASE_URL, PORT);
const SERIAL_RUNS = Number(process.env.BENCH_SERIAL_RUNS ?? 4000);

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
      const start = performance.now();
      await client.query(named ? { name: FIND_QR.name, text: FIND_QR.text, values } : { text: FIND_QR.text, values });
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
  try {
    for (const named of ['1', '0', '1', '0']) {
      const workers = startProcess('../bin/worker.ts', env, { DB_PREPARED_STATEMENTS: named });
      const api = startProcess('../bin/web.ts', env, { DB_PREPARED_STATEMENTS: named });
      try {
        await waitHealthy(`http://127.0.0.1:${PORT}/health`);
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
