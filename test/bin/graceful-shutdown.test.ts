import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { BUYER } from '../helpers/buyer.js';
import { freePort } from '../../chaos/free-port.js';
import { harness } from '../helpers/harness.js';
import { procfileCommand, projectRoot } from '../helpers/procfile.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';
import { qrBody } from '../helpers/qr-body.js';
import { renderLaneKey } from '../../shared/platform/render-lane.js';

interface Running {
  child: ChildProcess;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** What it logged so far (stdout: pino's lines). */
  output(): string;
}

/**
 * Starts a command as a platform does (its own process group, the PID it got is the one it signals);
 * resolves once it logged `ready` (a pino message).
 */
function start(argv: string[], env: Record<string, string>, ready: string): Promise<Running> {
  const [command, ...args] = argv;
  const child = spawn(command!, args, { cwd: projectRoot, detached: true, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`"msg":"${ready}"`)) resolve({ child, exited, output: () => out });
    });
    void exited.then((code) => reject(new Error(`${argv.join(' ')} exited with ${code} before it was ready`)));
  });
}

/**
 * The processes still alive in a process group (a started command's children orphaned by its exit would
 * be there); zombies (state Z) have exited and only wait for init to reap them.
 */
function groupMembers(pgid: number): string[] {
  return execFileSync('ps', ['-e', '-o', 'pgid=,stat=,pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => {
      const [group, stat] = line.trim().split(/\s+/);
      return group === String(pgid) && !stat?.startsWith('Z');
    });
}

/** SIGTERM, and how long until the process was gone. */
async function terminate(running: Running): Promise<{ code: number | null; ms: number; left: string[] }> {
  const started = performance.now();
  running.child.kill('SIGTERM');
  const code = await running.exited;
  return { code, ms: performance.now() - started, left: groupMembers(running.child.pid!) };
}

describe('graceful shutdown on SIGTERM, with real processes under load', function () {
  this.timeout(240_000);
  let account: BootstrapResult;
  let env: Record<string, string>;
  let baseUrl: string;
  const running: Running[] = [];

  before(async () => {
    account = await harness().bootstrap();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // Its own queues: the harness's in-process workers must not take these jobs.
    // The production entries need every external party's address: the harness's fakes, over the wire.
    const { csf, pac, smtp } = harness();
    env = {
      QUEUE_PREFIX: `aftest${process.pid}sig`,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://factura.example.test',
      SHUTDOWN_TIMEOUT_MS: '8000',
      CSF_BASE_URL: csf.url,
      PAC_BASE_URL: pac.url,
      PAC_TOKEN: pac.token,
      SAT_STATUS_URL: `${pac.url}/ConsultaCFDIService.svc`,
      SMTP_URL: smtp.url,
    };
  });
  after(async () => {
    for (const r of running) {
      try {
        process.kill(-r.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await removeKeysMatching(harness().redis, `${env.QUEUE_PREFIX!}:*`);
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const newQr = () => post('/v1/qrs', qrBody(account.storeUid), { 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID() });

  it('a worker stopped while stamping finishes or hands back its jobs: every confirmed QR ends INVOICED once', async () => {
    const api = await start(procfileCommand('web'), env, 'api listening');
    const worker = await start(procfileCommand('worker'), env, 'workers running');
    running.push(api, worker);
    const qrIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await newQr();
      expect(res.status).to.equal(201);
      const qr = (await res.json()) as { qr_id: string; qr_content: string };
      const link = new URL(qr.qr_content);
      const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
      const { review_digest } = (await (await post('/v1/public/qrs/preview', request)).json()) as { review_digest: string };
      const confirmed = await post('/v1/public/qrs/confirm', { ...request, review_digest });
      expect(confirmed.status).to.equal(202);
      qrIds.push(qr.qr_id);
    }
    const stopped = await terminate(worker);
    expect(stopped.ms, 'exit within 10 s').to.be.below(10_000);
    expect(stopped.left, 'nothing of the worker left running').to.deep.equal([]);

    running.push(await start(procfileCommand('worker'), env, 'workers running'));
    const db = harness().deps.db;
    // Stamping is what is awaited; a 100 ms look at PostgreSQL is how the merchant would see it too.
    for (let waited = 0; ; waited += 100) {
      const invoiced = Number((await db('qr_transactions').whereIn('id', qrIds).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n);
      if (invoiced === qrIds.length) break;
      if (waited > 120_000) throw new Error(`only ${invoiced} of ${qrIds.length} invoiced`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const invoices = await db('invoices').whereIn('transaction_id', qrIds).whereNot({ status: 'REFUSED' }).select('transaction_id', 'uuid', 'folio');
    expect(invoices).to.have.length(qrIds.length);
    expect(new Set(invoices.map((i) => i.uuid)).size).to.equal(qrIds.length);
    expect(new Set(invoices.map((i) => i.folio)).size).to.equal(qrIds.length);
    const stamp = new Queue('stamp', { connection: { url: harness().deps.config.redisUrl }, prefix: env.QUEUE_PREFIX });
    expect(await stamp.getJobCounts('failed')).to.deep.equal({ failed: 0 });
    await stamp.close();
  });

  it('the API stopped under load answers what it accepted and loses none of it', async () => {
    const api = running[0]!;
    const answers = Array.from({ length: 40 }, () =>
      newQr().then(
        async (res) => ({ status: res.status, body: (await res.json()) as { qr_id?: string } }),
        () => ({ status: 0, body: {} as { qr_id?: string } }),
      ),
    );
    // Stop it once the first answer is out, with the rest in flight or still to come.
    await Promise.race(answers);
    const stopped = await terminate(api);
    const settled = await Promise.all(answers);
    expect(stopped.ms, 'exit within 10 s').to.be.below(10_000);
    expect(stopped.code).to.equal(0);
    expect(stopped.left, 'nothing of the API left running').to.deep.equal([]);
    const created = settled.filter((a) => a.status === 201);
    expect(created.length).to.be.at.least(1);
    // Everything answered is an accepted QR or a refusal to connect; never a 5xx or a half-done answer.
    expect(
      settled.every((a) => a.status === 201 || a.status === 0 || a.status === 503),
      JSON.stringify(settled.map((a) => a.status)),
    ).to.equal(true);
    const ids = created.map((a) => a.body.qr_id!);
    expect(Number((await harness().deps.db('qr_transactions').whereIn('id', ids).count({ n: '*' }).first())?.n)).to.equal(ids.length);
  });

  it('a sale whose client gave up is still recorded before the API exits: SIGTERM waits for the handlers, not only the sockets', async () => {
    const port = await freePort();
    // Queues of its own: a worker the earlier cases left running would take the render job.
    const own = { ...env, QUEUE_PREFIX: `${env.QUEUE_PREFIX!}hold`, PORT: String(port), RENDER_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '30000' };
    // No worker yet: the test takes the POST's render job from the lane itself (issue #40) and hands it back later,
    // so the POST's handler waits for its render while the test acts.
    const lane = new Redis(harness().deps.config.redisUrl);
    try {
      const api = await start(procfileCommand('web'), own, 'api listening');
      running.push(api);
      const body = qrBody(account.storeUid);
      const client = new AbortController();
      const answer = fetch(`http://127.0.0.1:${port}/v1/qrs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body),
        signal: client.signal,
      }).catch(() => undefined);
      const taken = await lane.brpop(renderLaneKey(own.QUEUE_PREFIX), 30);
      expect(taken, 'the render job was queued').to.not.equal(null);
      client.abort();
      await answer;
      api.child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const seen = () => {
          if (!api.output().includes('"msg":"shutting down"')) return;
          api.child.stdout!.off('data', seen);
          resolve();
        };
        api.child.stdout!.on('data', seen);
        seen();
      });
      // The render goes on: the job back in the lane, and a worker to take it.
      await lane.rpush(renderLaneKey(own.QUEUE_PREFIX), taken![1]);
      running.push(await start(procfileCommand('worker'), own, 'workers running'));
      expect(await api.exited).to.equal(0);
      const sale = await harness().deps.db('qr_transactions').where({ sale_id: body.sale_id }).first('status');
      expect(sale?.status, 'the sale recorded').to.equal('PENDING');
      expect(api.output(), 'no error logged').to.not.match(/"level":5\d/);
    } finally {
      lane.disconnect();
      await removeKeysMatching(harness().redis, `${own.QUEUE_PREFIX}:*`);
    }
  });

  it('development too: SIGTERM to `npm run web` stops the service, nothing left running', async () => {
    const dev = await start(['npm', 'run', 'web'], env, 'api listening');
    running.push(dev);
    const stopped = await terminate(dev);
    expect(stopped.left, 'nothing of npm run web left running').to.deep.equal([]);
    const health = await fetch(`${baseUrl}/health`).then(
      (res) => res.status,
      () => 0,
    );
    expect(health, 'the port is closed').to.equal(0);
  });
});
