import { join } from 'node:path';
import { parseAdminPasswordHash } from './auth/admin-password.js';
import { parseEncryptionKey } from './crypto/encrypt-at-rest.js';

/**
 * The one place that reads the environment. Every value has a development default so that
 * `npm start` works on a fresh machine; production must set the secrets (checked at boot).
 */
export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix of every BullMQ key, so test runs and environments never share queues. */
  queuePrefix: string;
  logLevel: string;
  /** HMAC key that signs the `m` parameter of qr_content. */
  qrHmacKey: string;
  /** Keys that signed links before a rotation: still accepted, never used to sign. */
  qrHmacPreviousKeys: string[];
  /** HMAC key that signs public image URLs (qr_url). */
  urlSigningKey: string;
  /** 32-byte key (hex or base64) encrypting CSD private keys and passwords and webhook secrets at rest. */
  encryptionKey: string;
  /** The id (1–255) stored with every value ENCRYPTION_KEY seals, so that it can be rotated. */
  encryptionKeyId: number;
  /** Earlier encryption keys by id, for reading values not yet re-encrypted (`npm run cli -- reencrypt`). */
  encryptionPreviousKeys: { id: number; key: string }[];
  /** Largest accepted JSON body. */
  jsonBodyLimit: string;
  /** How long POST /v1/qrs waits for the render worker before answering 503. */
  renderTimeoutMs: number;
  /** How long the Redis idempotency cache keeps an entry (PostgreSQL keeps the record for good). */
  idempotencyCacheSeconds: number;
  /** Interval of the expiry sweep that catches QRs whose delayed job was lost. */
  expirySweepMs: number;
  accessTokenTtlSeconds: number;
  workerConcurrency: number;
  /** Base URL of the CSF adapter (see shared/csf/http-csf-client.ts); empty outside production = the built-in fake. */
  csfBaseUrl: string;
  /** Per-attempt timeout of a CSF call. */
  csfTimeoutMs: number;
  /** Attempts of an issuer synchronization before it is FAILED. */
  csfAttempts: number;
  /** First retry delay; each next one doubles, with ±50 % jitter. */
  csfBackoffMs: number;
  /** How long the buyer's page waits while an uploaded CSF is read (PDF render and QR search). */
  csfReadTimeoutMs: number;
  /** Base URL of the PAC (SW Sapien stamp v4 format); empty outside production = the built-in fake PAC. */
  pacBaseUrl: string;
  /** Bearer token for the PAC (SW's long-lived token). A secret: never logged. */
  pacToken: string;
  /** Per-call timeout of a stamp request. */
  pacTimeoutMs: number;
  /** Attempts of a stamp job on timeouts and 5xx before it waits for the reconciliation sweep. */
  pacAttempts: number;
  /** First retry delay of a stamp job; each next one doubles. */
  pacBackoffMs: number;
  /** SAT's public CFDI status service (SOAP); outside production with the fake PAC, the fake's own. */
  satStatusUrl: string;
  /** Interval of the job that asks SAT about cancellations waiting for the receptor (and re-queues lost requests). */
  cancellationPollMs: number;
  /** Webhook deliveries: per-attempt timeout, attempts, first retry delay (doubling: 14 attempts from 5 s span about a day). */
  webhookTimeoutMs: number;
  webhookAttempts: number;
  webhookBackoffMs: number;
  /** Let webhooks reach loopback, private and link-local addresses (local receivers in development and tests); off in production. */
  webhookAllowPrivate: boolean;
  /** Requests per minute per API key (merchant routes), and per client IP on the bearer-token routes (sliding window). */
  apiKeyRatePerMin: number;
  managementRatePerIp: number;
  /** Connections per process to PostgreSQL (every process has one pool). */
  dbPoolMax: number;
  /** Behind a load balancer: take the client IP (rate limits, logs) from X-Forwarded-For. */
  trustProxy: boolean;
  /** SIGTERM: how long running requests and jobs may take to finish before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** How often the dispatcher turns committed events into deliveries. */
  webhookDispatchMs: number;
  /** How often closed periods are looked at for unclaimed sales to report in a global invoice. */
  globalInvoiceCheckMs: number;
  /** How long after a period's close its global invoice waits (confirmations in flight at the close finish stamping). */
  globalInvoiceGraceMs: number;
  /** Interval of the sweeps that re-queue confirmations left STAMPING and stamped invoices without PDF or e-mail (and how old they must be). */
  stampSweepMs: number;
  /** Fault injection for `npm run chaos`: the probability of a SIGKILL right after a commit (0 = off; refused in production). */
  crashAfterCommit: number;
  /** SMTP server for invoice e-mails (smtp://user:pass@host:port); empty outside production = the built-in fake. */
  smtpUrl: string;
  mailFrom: string;
  smtpTimeoutMs: number;
  /** First retry delay of an invoice e-mail; each next one doubles. */
  emailBackoffMs: number;
  /** "Send the invoice again" requests per QR per day (the first e-mail after stamping is not counted). */
  emailSendsPerQrPerDay: number;
  /** Where the built-in fakes keep what the real party would (the PAC's stamps, the mail "sent"); empty: memory only. */
  fakeDataDir: string;
  /** Public buyer routes: requests per minute per client IP, and per QR token. */
  publicRatePerIp: number;
  publicRatePerToken: number;
  /** Short-code lookups per minute per client IP: low, since a code is guessed by trying. */
  publicCodeRatePerIp: number;
  /** Bearer token Prometheus presents to read /metrics (API and worker process); empty = metrics not served. */
  metricsToken: string;
  /** Port of the worker process's own /metrics listener; 0 = none. */
  workerMetricsPort: number;
  /** Where files (logos, XML, PDF) live: a local directory, or PostgreSQL when machines share no disk. */
  fileStore: 'disk' | 'postgres';
  /** The directory of the disk store; every API and worker process of one deployment must see the same one. */
  fileStoreDir: string;
  /** The operator of the queue dashboard (/admin/queues): Basic-auth user and scrypt hash; no hash = no dashboard. */
  adminUser: string;
  adminPasswordHash: string;
  /** Wrong dashboard passwords per client IP per 15 minutes before it answers 429. */
  adminLoginFailuresPerIp: number;
}

const DEV_SECRETS = {
  qrHmacKey: 'dev-only-qr-hmac-key-change-me-in-production',
  urlSigningKey: 'dev-only-url-signing-key-change-me-in-production',
  encryptionKey: '0000000000000000000000000000000000000000000000000000000000000000',
};

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`config: ${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function str(name: string, fallback: string, env: NodeJS.ProcessEnv): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

function keyId(name: string, raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id < 1 || id > 255) throw new Error(`config: ${name} must be a key id from 1 to 255, got "${raw}"`);
  return id;
}

/** The key format is parseEncryptionKey's to decide; here only whether it accepts the text. */
function isEncryptionKey(text: string): boolean {
  try {
    parseEncryptionKey(text);
    return true;
  } catch {
    return false;
  }
}

/** `id:key,id:key`; the keys themselves never appear in an error. */
function previousEncryptionKeys(raw: string): { id: number; key: string }[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '').map((entry, i) => {
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS entry ${i + 1} must be id:key`);
    const key = entry.slice(colon + 1);
    const id = keyId(`ENCRYPTION_PREVIOUS_KEYS entry ${i + 1}`, entry.slice(0, colon));
    if (!isEncryptionKey(key)) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS key id ${id} must be 32 bytes, as 64 hex characters or base64`);
    return { id, key };
  });
}

function fileStoreKind(raw: string): Config['fileStore'] {
  if (raw !== 'disk' && raw !== 'postgres') throw new Error(`config: FILE_STORE must be disk or postgres, got "${raw}"`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const port = int('PORT', 3000, env);
  const config: Config = {
    env: mode,
    port,
    host: str('HOST', '0.0.0.0', env),
    publicBaseUrl: str('PUBLIC_BASE_URL', `http://localhost:${port}`, env).replace(/\/+$/, ''),
    databaseUrl: str('DATABASE_URL', `postgres://postgres@127.0.0.1:5432/${mode === 'test' ? 'autofactura_test' : 'autofactura'}`, env),
    redisUrl: str('REDIS_URL', 'redis://127.0.0.1:6379/0', env),
    queuePrefix: str('QUEUE_PREFIX', (mode === 'test' ? 'aftest' : 'af'), env),
    logLevel: str('LOG_LEVEL', (mode === 'test' ? 'silent' : 'info'), env),
    qrHmacKey: str('QR_HMAC_KEY', DEV_SECRETS.qrHmacKey, env),
    urlSigningKey: str('URL_SIGNING_KEY', DEV_SECRETS.urlSigningKey, env),
    encryptionKey: str('ENCRYPTION_KEY', DEV_SECRETS.encryptionKey, env),
    encryptionKeyId: keyId('ENCRYPTION_KEY_ID', str('ENCRYPTION_KEY_ID', '1', env)),
    encryptionPreviousKeys: previousEncryptionKeys(str('ENCRYPTION_PREVIOUS_KEYS', '', env)),
    qrHmacPreviousKeys: str('QR_HMAC_PREVIOUS_KEYS', '', env).split(',').map((k) => k.trim()).filter((k) => k !== ''),
    jsonBodyLimit: str('JSON_BODY_LIMIT', '256kb', env),
    renderTimeoutMs: int('RENDER_TIMEOUT_MS', 5000, env),
    idempotencyCacheSeconds: int('IDEMPOTENCY_CACHE_SECONDS', 86_400, env),
    expirySweepMs: int('EXPIRY_SWEEP_MS', 60_000, env),
    accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 3600, env),
    workerConcurrency: int('WORKER_CONCURRENCY', 50, env),
    csfBaseUrl: str('CSF_BASE_URL', '', env).replace(/\/+$/, ''),
    csfTimeoutMs: int('CSF_TIMEOUT_MS', 10_000, env),
    csfAttempts: Math.max(1, int('CSF_ATTEMPTS', 5, env)),
    csfBackoffMs: int('CSF_BACKOFF_MS', 2000, env),
    csfReadTimeoutMs: int('CSF_READ_TIMEOUT_MS', 8000, env),
    pacBaseUrl: str('PAC_BASE_URL', '', env).replace(/\/+$/, ''),
    pacToken: str('PAC_TOKEN', '', env),
    pacTimeoutMs: int('PAC_TIMEOUT_MS', 30_000, env),
    pacAttempts: Math.max(1, int('PAC_ATTEMPTS', 8, env)),
    pacBackoffMs: int('PAC_BACKOFF_MS', 2000, env),
    stampSweepMs: int('STAMP_SWEEP_MS', 60_000, env),
    crashAfterCommit: Number(str('CRASH_AFTER_COMMIT', '0', env)),
    satStatusUrl: str('SAT_STATUS_URL', 'https://consultaqr.facturaelectronica.sat.gob.mx/ConsultaCFDIService.svc', env),
    cancellationPollMs: int('CANCELLATION_POLL_MS', 600_000, env),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, env),
    webhookAttempts: Math.max(1, int('WEBHOOK_ATTEMPTS', 14, env)),
    webhookBackoffMs: int('WEBHOOK_BACKOFF_MS', 5000, env),
    webhookAllowPrivate: str('WEBHOOK_ALLOW_PRIVATE', mode === 'production' ? '0' : '1', env) === '1',
    apiKeyRatePerMin: Math.max(1, int('API_KEY_RATE_PER_MIN', 1200, env)),
    managementRatePerIp: Math.max(1, int('MANAGEMENT_RATE_PER_IP', 600, env)),
    webhookDispatchMs: Math.max(100, int('WEBHOOK_DISPATCH_MS', 1000, env)),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 8000, env),
    dbPoolMax: Math.max(1, int('DB_POOL_MAX', 20, env)),
    trustProxy: str('TRUST_PROXY', '', env) === '1',
    globalInvoiceCheckMs: Math.max(1000, int('GLOBAL_INVOICE_CHECK_MS', 900_000, env)),
    globalInvoiceGraceMs: int('GLOBAL_INVOICE_GRACE_MS', 3_600_000, env),
    smtpUrl: str('SMTP_URL', '', env),
    mailFrom: str('MAIL_FROM', 'Facturación <facturas@localhost>', env),
    smtpTimeoutMs: int('SMTP_TIMEOUT_MS', 15_000, env),
    emailBackoffMs: int('EMAIL_BACKOFF_MS', 5000, env),
    emailSendsPerQrPerDay: int('EMAIL_SENDS_PER_QR_PER_DAY', 5, env),
    fakeDataDir: str('FAKE_DATA_DIR', mode === 'test' ? '' : 'var/fakes', env),
    publicRatePerIp: int('PUBLIC_RATE_PER_IP', 120, env),
    publicRatePerToken: int('PUBLIC_RATE_PER_TOKEN', 60, env),
    publicCodeRatePerIp: int('PUBLIC_CODE_RATE_PER_IP', 10, env),
    metricsToken: str('METRICS_TOKEN', '', env),
    workerMetricsPort: int('WORKER_METRICS_PORT', 9464, env),
    fileStore: fileStoreKind(str('FILE_STORE', 'disk', env)),
    fileStoreDir: str('FILE_STORE_DIR', 'var/files', env),
    adminUser: str('ADMIN_USER', 'ops', env),
    adminPasswordHash: str('ADMIN_PASSWORD_HASH', '', env),
    adminLoginFailuresPerIp: Math.max(1, int('ADMIN_LOGIN_FAILURES_PER_IP', 10, env)),
  };
  if (mode === 'production') {
    for (const key of ['qrHmacKey', 'urlSigningKey', 'encryptionKey'] as const) {
      if (config[key] === DEV_SECRETS[key]) throw new Error(`config: ${key} must be set in production`);
    }
    // The development keys are public (they are in this file): one still accepted would let anyone sign or seal.
    if (config.qrHmacPreviousKeys.includes(DEV_SECRETS.qrHmacKey)) throw new Error('config: QR_HMAC_PREVIOUS_KEYS must not hold the development key in production');
    const devEncryptionKey = parseEncryptionKey(DEV_SECRETS.encryptionKey);
    const devPrevious = config.encryptionPreviousKeys.find((k) => parseEncryptionKey(k.key).equals(devEncryptionKey));
    if (devPrevious) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS key id ${devPrevious.id} is the development key, refused in production`);
    if (!config.csfBaseUrl) throw new Error('config: CSF_BASE_URL must be set in production (the fake CSF service is for development)');
    if (!config.pacBaseUrl || !config.pacToken) throw new Error('config: PAC_BASE_URL and PAC_TOKEN must be set in production (the fake PAC is for development)');
    if (!config.smtpUrl) throw new Error('config: SMTP_URL must be set in production (the fake SMTP server is for development)');
    if (config.crashAfterCommit !== 0) throw new Error('config: CRASH_AFTER_COMMIT is fault injection for tests; it must not be set in production');
  }
  if (!(config.crashAfterCommit >= 0 && config.crashAfterCommit <= 1)) throw new Error('config: CRASH_AFTER_COMMIT must be a probability between 0 and 1');
  if (!isEncryptionKey(config.encryptionKey)) {
    throw new Error('config: ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  }
  const ids = [config.encryptionKeyId, ...config.encryptionPreviousKeys.map((k) => k.id)];
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`config: encryption key id ${twice} is given twice (ENCRYPTION_KEY_ID, ENCRYPTION_PREVIOUS_KEYS)`);
  if (config.adminPasswordHash) {
    try {
      parseAdminPasswordHash(config.adminPasswordHash); // a typo fails the boot, not the first login
    } catch (err) {
      throw new Error(`config: ${(err as Error).message}`);
    }
  }
  return Object.freeze(config);
}

let current: Readonly<Config> | undefined;

/** The process-wide configuration, read once. */
export function config(): Readonly<Config> {
  current ??= loadConfig();
  return current;
}

/** The fake SMTP server's folder of .eml files, when the fakes keep their data. */
export function fakeMailDir(cfg: Pick<Config, 'fakeDataDir'>): string | undefined {
  return cfg.fakeDataDir ? join(cfg.fakeDataDir, 'mail') : undefined;
}

/** The fake PAC's journal of stamps, when the fakes keep their data. */
export function fakePacJournal(cfg: Pick<Config, 'fakeDataDir'>): string | undefined {
  return cfg.fakeDataDir ? join(cfg.fakeDataDir, 'pac-stamps.jsonl') : undefined;
}
