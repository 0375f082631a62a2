import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES } from '../shared/platform/jobs.js';
import { join } from 'node:path';
import type { BootstrapResult } from '../cli/bootstrap.js';
import type { FakePacServer } from '../fakes/pac-server.js';
import type { Db } from '../shared/platform/db.js';
import type { QrCreateRequest } from '../shared/qr/qr-request.js';
import { sampleSale } from '../test/fixtures/sample-sale.js';
import { removeKeysMatching } from '../test/helpers/redis-keys.js';
import { freePort } from './free-port.js';
import { httpCall, type Answer } from './http-call.js';
import { serviceProcess, type ServiceProcess } from './service-process.js';

/** What every scenario runs against: a migrated database with an account, a Redis, a scriptable PAC. */
export interface ChaosContext {
  db: Db;
  databaseUrl: string;
  redisUrl: string;
  account: BootstrapResult;
  /** The fake PAC in this process: the workers reach it over HTTP; its `calls` count the stamps made. */
  pac: FakePacServer;
  /** Where process logs go. */
  workDir: string;
}

/** An API and a worker process of the service, on their own queue prefix and port. */
export interface Services {
  api: ServiceProcess;
  worker: ServiceProcess;
  baseUrl: string;
  queuePrefix: string;
  env: Record<string, string>;
  /** Any process that exited on its own. */
  crashes(): string[];
  stop(): Promise<void>;
}

export async function startServices(ctx: ChaosContext, name: string, extraEnv: Record<string, string> = {}, pacUrl = ctx.pac.url): Promise<Services> {
  const port = await freePort();
  const queuePrefix = `afchaos${process.pid}${name.replace(/[^a-z0-9]/gi, '')}`;
  const env: Record<string, string> = {
    // JSON logs, as in production: the scenarios read them (readiness, job outcomes).
    NODE_ENV: 'development',
    LOG_FORMAT: 'json',
    DATABASE_URL: ctx.databaseUrl,
    REDIS_URL: ctx.redisUrl,
    QUEUE_PREFIX: queuePrefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: 'https://factura.example.test',
    WORKER_METRICS_PORT: '0',
    PAC_BASE_URL: pacUrl,
    PAC_TOKEN: ctx.pac.token,
    SAT_STATUS_URL: `${ctx.pac.url}/ConsultaCFDIService.svc`,
    FILE_STORE_DIR: join(ctx.workDir, 'files'),
    STAMP_SWEEP_MS: '2000',
    EXPIRY_SWEEP_MS: '5000',
    PAC_TIMEOUT_MS: '5000',
    PAC_ATTEMPTS: '4',
    PAC_BACKOFF_MS: '200',
    RENDER_TIMEOUT_MS: '5000',
    SHUTDOWN_TIMEOUT_MS: '8000',
    PUBLIC_RATE_PER_IP: '100000000',
    PUBLIC_RATE_PER_TOKEN: '100000000',
    PUBLIC_CODE_RATE_PER_IP: '100000000',
    // One API key and one IP drive all the load: the per-key and per-IP limits would refuse it.
    API_KEY_RATE_PER_MIN: '100000000',
    MANAGEMENT_RATE_PER_IP: '100000000',
    CANCELLATION_POLL_MS: '3600000',
    GLOBAL_INVOICE_CHECK_MS: '3600000',
    WEBHOOK_DISPATCH_MS: '5000',
    ...extraEnv,
  };
  const api = serviceProcess(`${name} api`, 'bin/web.ts', 'api listening', env, join(ctx.workDir, `${name}-api.log`));
  const worker = serviceProcess(`${name} worker`, 'bin/worker.ts', 'workers running', env, join(ctx.workDir, `${name}-worker.log`));
  try {
    await Promise.all([api.start(), worker.start()]);
  } catch (error) {
    // One side failed to come up: the other may be running and would outlive the scenario.
    await Promise.allSettled([api.stop(), worker.stop()]);
    throw error;
  }
  return {
    api,
    worker,
    baseUrl: `http://127.0.0.1:${port}`,
    queuePrefix,
    env,
    crashes: () => [...api.crashes, ...worker.crashes],
    async stop() {
      await Promise.all([api.stop(), worker.stop()]);
      // The Redis may be shared (the CI test): leave none of this prefix's keys behind, the queues' nor the
      // service's own (idempotency cache, rate counters).
      for (const queue of Object.values(QUEUES)) {
        const q = new Queue(queue, { connection: { url: ctx.redisUrl }, prefix: queuePrefix });
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
      const redis = new Redis(ctx.redisUrl);
      try {
        await removeKeysMatching(redis, `${queuePrefix}:*`);
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** The sample sale with a unique sale id. */
export function saleBody(ctx: ChaosContext, expiresAt = new Date(Date.now() + 5 * 86_400_000)): QrCreateRequest {
  return sampleSale(ctx.account.storeUid, expiresAt, `chaos-${randomUUID()}`);
}

export function postQr(ctx: ChaosContext, baseUrl: string, body: unknown, key: string, timeoutMs = 30_000): Promise<Answer> {
  return httpCall('POST', `${baseUrl}/v1/qrs`, {
    headers: { 'X-API-Key': ctx.account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': key },
    body,
    timeoutMs,
  });
}

export function getQr(ctx: ChaosContext, baseUrl: string, qrId: string): Promise<Answer> {
  return httpCall('GET', `${baseUrl}/v1/qrs/${qrId}`, { headers: { 'X-API-Key': ctx.account.apiKey } });
}

/** A buyer SAT's fake PAC knows (name, zip and regime as registered). */
export const BUYER = {
  rfc: 'URE180429TM6',
  name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
  tax_regime: '601',
  postal_code: '86991',
  cfdi_use: 'G03',
  email: 'compras@example.test',
};

/** The buyer confirms the QR behind `qrContent`, as the page does: preview, then confirm with its `review_digest`. */
export async function confirmQr(baseUrl: string, qrContent: string): Promise<Answer> {
  const link = new URL(qrContent);
  const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
  const preview = await httpCall('POST', `${baseUrl}/v1/public/qrs/preview`, { body: request });
  // A preview with no answer (or refused) is the confirmation's answer: nothing was confirmed.
  if (preview.status !== 200) return preview;
  const { review_digest } = preview.body as { review_digest: string };
  return httpCall('POST', `${baseUrl}/v1/public/qrs/confirm`, { body: { ...request, review_digest } });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function randomBetween(min: number, max: number): number {
  return min + Math.random() * (max - min);
}

/** Polls `done` every 200 ms; resolves with the ms it took, or undefined past `timeoutMs`. */
export async function waitFor(done: () => Promise<boolean>, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  for (;;) {
    if (await done()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) return undefined;
    await sleep(200);
  }
}
