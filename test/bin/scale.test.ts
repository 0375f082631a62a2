import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/webhook-receiver.js';
import { jobId } from '../../shared/platform/jobs.js';
import { BUYER } from '../helpers/buyer.js';
import { freePort } from '../../chaos/free-port.js';
import { harness } from '../helpers/harness.js';
import { procfileCommand, projectRoot } from '../helpers/procfile.js';
import { call } from '../helpers/http.js';
import { qrBody } from '../helpers/qr-body.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';

/** The expiry sweep's period here: short, so a few seconds hold several of its runs. */
const SWEEP_MS = 1000;

/** Starts a Procfile process; resolves once it logged `ready` (a pino message). */
function start(type: 'web' | 'worker', env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const [command, ...args] = procfileCommand(type);
  const child = spawn(command!, args, { cwd: projectRoot, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`"msg":"${ready}"`)) {
        child.stdout!.off('data', onData);
        // Keep draining its log, or the process blocks on a full pipe.
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${type} exited with ${code} before it was ready`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

async function until(what: string, done: () => Promise<boolean>, ms = 30_000): Promise<void> {
  // PostgreSQL is where a merchant sees the outcome; a 100 ms look at it is how the test sees it too.
  for (const started = Date.now(); !(await done());) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('2 API and 2 worker processes on one database and Redis, under load (issue #30)', function () {
  this.timeout(120_000);
  let account: BootstrapResult;
  let receiver: FakeWebhookReceiver;
  let sweeps: QueueEvents;
  const sweepRuns: string[] = [];
  const processes: ChildProcess[] = [];
  let apis: string[] = [];
  const prefix = `aftest${process.pid}scale`;
  const db = () => harness().deps.db;

  before(async () => {
    account = await harness().bootstrap();
    receiver = await startFakeWebhookReceiver();
    // Every expiry is announced once: the outbox row is written in the expiry's own transaction.
    const endpoint = await call('POST', '/v1/webhooks/endpoints', {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: { url: receiver.url, events: ['qr.expired'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
    const { csf, pac, smtp } = harness();
    const ports = [await freePort(), await freePort()];
    apis = ports.map((port) => `http://127.0.0.1:${port}`);
    // Queues of their own: the harness's in-process workers must not take these jobs.
    const env = {
      QUEUE_PREFIX: prefix,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://factura.example.test',
      EXPIRY_SWEEP_MS: String(SWEEP_MS),
      CSF_BASE_URL: csf.url,
      PAC_BASE_URL: pac.url,
      PAC_TOKEN: pac.token,
      SAT_STATUS_URL: `${pac.url}/ConsultaCFDIService.svc`,
      SMTP_URL: smtp.url,
    };
    sweeps = new QueueEvents('expiry', { connection: { url: harness().deps.config.redisUrl }, prefix });
    sweeps.on('completed', ({ jobId: id }) => {
      if (id.startsWith(`repeat:${jobId.sweepExpired}:`)) sweepRuns.push(id);
    });
    await sweeps.waitUntilReady();
    const started = await Promise.all([
      ...ports.map((port) => start('web', { ...env, PORT: String(port) }, 'api listening')),
      start('worker', env, 'workers running'),
      start('worker', env, 'workers running'),
    ]);
    processes.push(...started);
  });

  after(async () => {
    await Promise.all(processes.map(stop));
    await sweeps?.close();
    await receiver?.close();
    await removeKeysMatching(harness().redis, `${prefix}:*`);
  });

  const post = async (api: string, body: unknown, key: string = randomUUID()) => {
    const res = await fetch(`${api}/v1/qrs`, {
      method: 'POST',
      headers: { 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { qr_id: string; qr_content: string; status: string } };
  };

  /** `count` requests, 20 at a time, each from `make(i)`. */
  async function inParallel<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
    const out: T[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < count) {
          const i = next++;
          out[i] = await make(i);
        }
      }),
    );
    return out;
  }

  const saleIds: string[] = [];
  const shortLived: string[] = [];
  const confirmed: { qrId: string; content: string }[] = [];

  it('300 sales over both APIs, 43 of them sent to both at once with one idempotency-key: every sale recorded once', async () => {
    const answers = await inParallel(300, async (i) => {
      const saleId = `scale-${randomUUID()}`;
      saleIds.push(saleId);
      // Every 10th expires in 2 s; the rest in 5 days.
      const body = qrBody(account.storeUid, { sale_id: saleId, ...(i % 10 === 0 ? { expires_at: new Date(Date.now() + 2000).toISOString() } : {}) });
      if (i % 7 !== 0) return [await post(apis[i % 2]!, body)];
      // A POS that retries through the other API process while the first attempt is still out.
      const key = randomUUID();
      return Promise.all([post(apis[0]!, body, key), post(apis[1]!, body, key)]);
    });
    const created = answers.flatMap((pair) => pair.filter((a) => a.status === 201));
    // A retry racing its first attempt is told so (409) or replayed; each sale has a 201.
    expect(answers.every((pair) => pair.some((a) => a.status === 201) && pair.every((a) => a.status === 201 || a.status === 409))).to.equal(true);
    const rows = (await db()('qr_transactions').whereIn('sale_id', saleIds).groupBy('sale_id').select('sale_id').count({ n: '*' })) as { n: string }[];
    expect(rows).to.have.length(300);
    expect(rows.every((r) => Number(r.n) === 1)).to.equal(true);
    for (const [i, pair] of answers.entries()) {
      const qr = pair.find((a) => a.status === 201)!.body;
      if (i % 10 === 0) shortLived.push(qr.qr_id);
      else if (confirmed.length < 20) confirmed.push({ qrId: qr.qr_id, content: qr.qr_content });
    }
    expect(new Set(created.map((a) => a.body.qr_id)).size).to.equal(300);
  });

  it('the 30 QRs due in 2 s are EXPIRED, each once (one qr.expired event), with two workers sweeping', async () => {
    await until('all expired', async () => Number((await db()('qr_transactions').whereIn('id', shortLived).where({ status: 'EXPIRED' }).count({ n: '*' }).first())?.n) === 30);
    const events = (await db()('webhook_events').where({ type: 'qr.expired', account_id: account.accountId }).select(db().raw("payload->'data'->>'qr_id' as qr_id"))) as {
      qr_id: string;
    }[];
    const perQr = new Map<string, number>();
    for (const e of events) perQr.set(e.qr_id, (perQr.get(e.qr_id) ?? 0) + 1);
    expect([...perQr.keys()].sort()).to.deep.equal([...shortLived].sort());
    expect([...perQr.values()].every((n) => n === 1)).to.equal(true);
  });

  it('20 sales confirmed by their buyers through both APIs: each stamped once (one ACTIVE invoice, one PAC call)', async () => {
    const qrIds = await inParallel(confirmed.length, async (i) => {
      const link = new URL(confirmed[i]!.content);
      const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
      const api = apis[i % 2]!;
      const send = (path: string, body: unknown) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const preview = await send('/v1/public/qrs/preview', request);
      expect(preview.status).to.equal(200);
      const { review_digest } = (await preview.json()) as { review_digest: string };
      // Confirmed through the other API process than the one that previewed.
      const res = await fetch(`${apis[(i + 1) % 2]}/v1/public/qrs/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, review_digest }),
      });
      expect(res.status).to.equal(202);
      return confirmed[i]!.qrId;
    });
    await until(
      'all invoiced',
      async () => Number((await db()('qr_transactions').whereIn('id', qrIds).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n) === qrIds.length,
      60_000,
    );
    const invoices = (await db()('invoices').whereIn('transaction_id', qrIds).select('transaction_id', 'status', 'uuid')) as {
      transaction_id: string;
      status: string;
      uuid: string;
    }[];
    expect(invoices.map((i) => i.status)).to.deep.equal(Array(qrIds.length).fill('ACTIVE'));
    expect(new Set(invoices.map((i) => i.transaction_id)).size).to.equal(qrIds.length);
    const uuids = new Set(invoices.map((i) => i.uuid));
    const stamps = harness().pac.calls.filter((c) => c.uuid !== undefined && uuids.has(c.uuid));
    expect(stamps.map((c) => c.outcome)).to.deep.equal(Array(qrIds.length).fill('stamped'));
  });

  it(`the expiry sweep (every ${SWEEP_MS} ms) ran once per period, not once per worker`, async () => {
    // Runs seen since the processes started (about as long as the tests above took); each run's id is its due time.
    const due = sweepRuns.map((id) => Number(id.split(':').pop())).sort((a, b) => a - b);
    expect(due.length, 'runs seen').to.be.at.least(3);
    const gaps = due.slice(1).map((t, i) => t - due[i]!);
    expect(Math.min(...gaps), `gaps between runs: ${gaps.join(', ')}`).to.be.at.least(SWEEP_MS);
    expect(new Set(sweepRuns).size).to.equal(sweepRuns.length);
  });
});
