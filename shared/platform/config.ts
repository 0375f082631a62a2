import { join } from 'node:path';
import { parseAdminPasswordHash } from './crypto/admin-password.js';
import { parseEncryptionKey } from './crypto/encrypt-at-rest.js';

/**
 * The one place that reads the environment, as one schema: each setting's variable, default, parser and
 * meaning. `Config` is derived from it, and so are `.env.example` and docs/configuration.md
 * (`npm run docs:config`; a test fails when they differ). Every value has a development default so that
 * `npm start` works on a fresh machine; production must set the secrets and the external parties (checked at boot).
 */
export type Mode = 'development' | 'test' | 'production';

export interface Setting<T> {
  /** The environment variable. */
  name: string;
  /** What it means, for the docs: one sentence or two. */
  doc: string;
  /** The raw default, by mode (and, for derived defaults, the rest of the environment). */
  fallback: string | ((mode: Mode, env: NodeJS.ProcessEnv) => string);
  /** How the docs show the default (Markdown) when it is not one literal. */
  shownDefault?: string;
  /** A secret: `.env.example` leaves it empty, the docs show no value. */
  secret?: boolean;
  parse(raw: string, name: string): T;
}

const DEV_SECRETS = {
  qrHmacKey: 'dev-only-qr-hmac-key-change-me-in-production',
  urlSigningKey: 'dev-only-url-signing-key-change-me-in-production',
  encryptionKey: '0000000000000000000000000000000000000000000000000000000000000000',
};

/** QR_HMAC_KEY and URL_SIGNING_KEY in production: as many bytes as the HMAC-SHA256 they key (`openssl rand -hex 32` gives 64). */
const MIN_SIGNING_KEY_BYTES = 32;

const text = (raw: string): string => raw;
const withoutTrailingSlash = (raw: string): string => raw.replace(/\/+$/, '');
const flag = (raw: string): boolean => raw === '1';
const commaList = (raw: string): string[] =>
  raw
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');

/** A non-negative integer; below `atLeast` is raised to it (a zero there would stop the work it paces). */
function integer(atLeast = 0): (raw: string, name: string) => number {
  return (raw, name) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`config: ${name} must be a non-negative integer, got "${raw}"`);
    return Math.max(atLeast, value);
  };
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
  return commaList(raw).map((entry, i) => {
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS entry ${i + 1} must be id:key`);
    const key = entry.slice(colon + 1);
    const id = keyId(`ENCRYPTION_PREVIOUS_KEYS entry ${i + 1}`, entry.slice(0, colon));
    if (!isEncryptionKey(key)) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS key id ${id} must be 32 bytes, as 64 hex characters or base64`);
    return { id, key };
  });
}

function fileStoreKind(raw: string): 'disk' | 'postgres' | 's3' {
  if (raw !== 'disk' && raw !== 'postgres' && raw !== 's3') throw new Error(`config: FILE_STORE must be disk, postgres or s3, got "${raw}"`);
  return raw;
}

/** `host:port,host:port`: a Redis Cluster's seed nodes, or Sentinels. */
function hostPorts(raw: string, name: string): { host: string; port: number }[] {
  return commaList(raw).map((entry) => {
    const colon = entry.lastIndexOf(':');
    const port = Number(entry.slice(colon + 1));
    if (colon <= 0 || !Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`config: ${name} entries must be host:port, got "${entry}"`);
    return { host: entry.slice(0, colon), port };
  });
}

/**
 * On a Redis Cluster, BullMQ's Lua scripts touch many keys of a queue at once, which must share a slot: a prefix
 * in braces is a hash tag, so `{af}:render:…` and `{af}:rl:…` all hash on `af`. A prefix already tagged is kept.
 */
export function hashTagged(prefix: string): string {
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}

function logFormat(raw: string): 'json' | 'pretty' {
  if (raw !== 'json' && raw !== 'pretty') throw new Error(`config: LOG_FORMAT must be json or pretty, got "${raw}"`);
  return raw;
}

function probability(raw: string, name: string): number {
  const value = Number(raw);
  if (!(value >= 0 && value <= 1)) throw new Error(`config: ${name} must be a probability between 0 and 1`);
  return value;
}

function setting<T>(s: Setting<T>): Setting<T> {
  return s;
}

const int = (name: string, fallback: number, doc: string, atLeast = 0) => setting({ name, doc, fallback: String(fallback), parse: integer(atLeast) });
const str = (name: string, fallback: string, doc: string) => setting({ name, doc, fallback, parse: text });

/** Every setting, in the order the docs list them. */
export const SETTINGS = {
  port: int('PORT', 3000, 'HTTP listener port.'),
  host: str('HOST', '0.0.0.0', "HTTP listener address (the worker's metrics listener too)."),
  publicBaseUrl: setting({
    name: 'PUBLIC_BASE_URL',
    fallback: (_mode, env) => `http://localhost:${env.PORT || 3000}`,
    shownDefault: '`http://localhost:$PORT`',
    doc: 'Base of `qr_content`, `qr_url` and every link the service prints; a LAN address lets a real phone open the buyer page.',
    parse: withoutTrailingSlash,
  }),
  databaseUrl: setting({
    name: 'DATABASE_URL',
    fallback: (mode) => `postgres://postgres@127.0.0.1:5432/${mode === 'test' ? 'autofactura_test' : 'autofactura'}`,
    shownDefault: '`postgres://postgres@127.0.0.1:5432/autofactura` (`autofactura_test` under `NODE_ENV=test`)',
    doc: 'PostgreSQL, the truth.',
    parse: text,
  }),
  databaseReadUrl: str(
    'DATABASE_READ_URL',
    '',
    "A streaming replica (hot standby) of DATABASE_URL's database, for the reads that may lag it a moment: GET of a QR, the buyer's page, resolve and preview, the books' lists, export and summary, the status page. Empty = they read the primary. docs/deployment.md says which read goes where and how a GET right after its POST still finds the row.",
  ),
  dbPoolMax: int('DB_POOL_MAX', 20, 'PostgreSQL connections per process (and an API process as many again to DATABASE_READ_URL when set).', 1),
  redisUrl: str(
    'REDIS_URL',
    'redis://127.0.0.1:6379/0',
    'Redis: BullMQ and the idempotency cache. `rediss://` = TLS; a username and password in the URL are used (on a cluster too, where its host is not).',
  ),
  redisClusterNodes: setting({
    name: 'REDIS_CLUSTER_NODES',
    fallback: '',
    doc: "A Redis Cluster's seed nodes, `host:port,host:port`; empty = one Redis server at `REDIS_URL`. On a cluster `QUEUE_PREFIX` gets a hash tag (`af` becomes `{af}`) so each queue's keys, and the service's own, share one slot; `QUEUE_SHARDS` gives the queues several.",
    parse: hostPorts,
  }),
  redisSentinels: setting({
    name: 'REDIS_SENTINELS',
    fallback: '',
    doc: "Redis Sentinels, `host:port,host:port`: the client asks them for the master of `REDIS_SENTINEL_NAME` and follows its failovers; the password and TLS of `REDIS_URL` are the master's (the Sentinels themselves without either). Not with `REDIS_CLUSTER_NODES`.",
    parse: hostPorts,
  }),
  redisSentinelName: str('REDIS_SENTINEL_NAME', 'mymaster', 'The master group the Sentinels watch (`sentinel monitor <name> …`).'),
  redisSkipVersionCheck: setting({
    name: 'REDIS_SKIP_VERSION_CHECK',
    fallback: '0',
    doc: '`1` for a managed Redis that forbids `INFO`: BullMQ skips its version and eviction-policy check and the clients their ready check (then nobody warns about an eviction policy other than `noeviction`).',
    parse: flag,
  }),
  redisTlsCaFile: str(
    'REDIS_TLS_CA_FILE',
    '',
    "PEM file of the CA that signed the Redis server's certificate, read once at start; empty = the system's CAs. Only with a `rediss://` `REDIS_URL` (refused beside `redis://`, where it would never be read).",
  ),
  dbPreparedStatements: setting({
    name: 'DB_PREPARED_STATEMENTS',
    fallback: '1',
    doc: "`1`: the hot paths' statements are named, parsed and planned once per connection; `0` sends them unnamed, for a pooler in transaction mode that cannot keep them (PgBouncer before 1.21, or without `max_prepared_statements`). docs/deployment.md has the cost.",
    parse: flag,
  }),
  webhookDeliveryRetentionDays: int(
    'WEBHOOK_DELIVERY_RETENTION_DAYS',
    30,
    'Days a webhook delivery is kept (its endpoint log shows it); older days are dropped a partition at a time.',
    2,
  ),
  webhookEventRetentionDays: int(
    'WEBHOOK_EVENT_RETENTION_DAYS',
    31,
    'Days a webhook event is kept; longer than `WEBHOOK_DELIVERY_RETENTION_DAYS` (a delivery reads its event). Older days are dropped a partition at a time.',
    3,
  ),
  idempotencyRetentionDays: int(
    'IDEMPOTENCY_RETENTION_DAYS',
    35,
    "Days PostgreSQL keeps an idempotency record (a key's window: the same key after it makes a new resource). Older records are dropped a partition (a week) at a time: a record may stay up to a week longer.",
    2,
  ),
  qrRetentionMonths: int(
    'QR_RETENTION_MONTHS',
    63,
    "Months a month of QR sales (with their concepts and taxes) is kept from the month's start: 63, five years from a CFDI stamped up to three months after its sale. A month holding a CFDI inside its five years is kept whatever this says (the keep-partitions job raises it as needing attention).",
    2,
  ),
  queuePrefix: setting({
    name: 'QUEUE_PREFIX',
    fallback: (mode) => (mode === 'test' ? 'aftest' : 'af'),
    shownDefault: '`af` (`aftest` under `NODE_ENV=test`)',
    doc: 'Prefix of every BullMQ key, so environments and test runs never share queues.',
    parse: text,
  }),
  queueShards: int(
    'QUEUE_SHARDS',
    1,
    "Queue shards (issue #40): every queue is split into this many, each under its own hash tag, so on a Redis Cluster the queue work spreads over the masters (one shard per master, or a multiple). A job's shard follows from its id (shared/platform/queue-shards.ts); the job schedulers run on shard 0. `1` = the queues under `QUEUE_PREFIX` itself, as on one Redis. Every process of a deployment must use the same value; changing it leaves the jobs waiting in the old layout to the sweeps (docs/deployment.md).",
    1,
  ),
  workerShards: setting({
    name: 'WORKER_SHARDS',
    fallback: '',
    doc: 'The shards whose queues this worker process consumes, `0,2`; empty = every shard. Some worker of the deployment must consume each shard, shard 0 included (its job schedulers).',
    parse: (raw: string, name: string) =>
      commaList(raw).map((entry) => {
        const n = Number(entry);
        if (!Number.isInteger(n) || n < 0) throw new Error(`config: ${name} entries must be shard numbers, got "${entry}"`);
        return n;
      }),
  }),
  logFormat: setting({
    name: 'LOG_FORMAT',
    fallback: (mode) => (mode === 'development' ? 'pretty' : 'json'),
    shownDefault: '`pretty` in development, `json` otherwise',
    doc: '`json`: one JSON object per line (production, log shippers); `pretty`: readable lines (pino-pretty, a development dependency), coloured only when stdout is a terminal.',
    parse: logFormat,
  }),
  logLevel: setting({
    name: 'LOG_LEVEL',
    fallback: (mode) => (mode === 'test' ? 'silent' : 'info'),
    shownDefault: '`info` (`silent` under `NODE_ENV=test`)',
    doc: 'pino log level.',
    parse: text,
  }),
  qrHmacKey: setting({
    name: 'QR_HMAC_KEY',
    fallback: DEV_SECRETS.qrHmacKey,
    secret: true,
    doc: 'HMAC key signing the `m` parameter of `qr_content`. Required in production, at least 32 bytes (`openssl rand -hex 32`).',
    parse: text,
  }),
  qrHmacPreviousKeys: setting({
    name: 'QR_HMAC_PREVIOUS_KEYS',
    fallback: '',
    secret: true,
    doc: 'Keys `QR_HMAC_KEY` replaced, comma-separated: links they signed still open, nothing new is signed with them.',
    parse: commaList,
  }),
  urlSigningKey: setting({
    name: 'URL_SIGNING_KEY',
    fallback: DEV_SECRETS.urlSigningKey,
    secret: true,
    doc: 'HMAC key signing `qr_url`, invoice file and export links. Required in production, at least 32 bytes (`openssl rand -hex 32`).',
    parse: text,
  }),
  encryptionKey: setting({
    name: 'ENCRYPTION_KEY',
    fallback: DEV_SECRETS.encryptionKey,
    secret: true,
    doc: '32 bytes (64 hex characters or base64) encrypting CSD keys and passwords and webhook secrets at rest. Required in production, where the development key is refused in any spelling.',
    parse: text,
  }),
  encryptionKeyId: setting({
    name: 'ENCRYPTION_KEY_ID',
    fallback: '1',
    doc: 'The id (1-255) stored with every value `ENCRYPTION_KEY` seals, so that it can be rotated.',
    parse: (raw, name) => keyId(name, raw),
  }),
  encryptionPreviousKeys: setting({
    name: 'ENCRYPTION_PREVIOUS_KEYS',
    fallback: '',
    secret: true,
    doc: '`id:key,id:key`: keys `ENCRYPTION_KEY` replaced, to read what `npm run cli -- reencrypt` has not rewritten yet.',
    parse: previousEncryptionKeys,
  }),
  jsonBodyLimit: str('JSON_BODY_LIMIT', '256kb', 'Largest JSON body (413 above it).'),
  renderTimeoutMs: int('RENDER_TIMEOUT_MS', 5000, 'How long `POST /v1/qrs` waits for the render worker before answering 503.'),
  idempotencyCacheSeconds: int('IDEMPOTENCY_CACHE_SECONDS', 86_400, 'Life of a Redis idempotency cache entry (PostgreSQL keeps the record `IDEMPOTENCY_RETENTION_DAYS`).'),
  expirySweepMs: int('EXPIRY_SWEEP_MS', 60_000, 'Period of the sweep that expires QRs whose delayed job was lost.'),
  accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 3600, 'Life of a bearer access token.'),
  workerConcurrency: int(
    'WORKER_CONCURRENCY',
    50,
    'Concurrent jobs per queue in a worker process (per queue and shard with `QUEUE_SHARDS`: each shard has its own BullMQ worker).',
  ),
  csfBaseUrl: setting({
    name: 'CSF_BASE_URL',
    fallback: '',
    doc: "The CSF adapter (SAT's tax-status service). Left empty, the development entries (`npm start`, `npm run web`, `npm run worker`) start the built-in fake on loopback and the production entries refuse to start.",
    parse: withoutTrailingSlash,
  }),
  csfTimeoutMs: int('CSF_TIMEOUT_MS', 10_000, 'Per-attempt timeout of a CSF call.'),
  csfAttempts: int('CSF_ATTEMPTS', 5, 'Attempts of an issuer synchronization before it is FAILED.', 1),
  csfBackoffMs: int('CSF_BACKOFF_MS', 2000, 'First retry delay of a synchronization; each next one doubles, with ±50 % jitter.'),
  csfReadTimeoutMs: int('CSF_READ_TIMEOUT_MS', 8000, 'How long reading an uploaded CSF (PDF render, QR search, text fallback) may take before 422 `csf_unreadable`.'),
  pacBaseUrl: setting({
    name: 'PAC_BASE_URL',
    fallback: '',
    doc: "The PAC (SW Sapien's REST API). Left empty, the development entries start the built-in fake PAC and point `SAT_STATUS_URL` at its status service; required by the production entries.",
    parse: withoutTrailingSlash,
  }),
  pacToken: setting({
    name: 'PAC_TOKEN',
    fallback: '',
    secret: true,
    doc: "SW's \"infinite\" token, generated in SW's portal (portal.sw.com.mx, by the account's owner): it never expires, but generating another one ends it. Or leave it empty and set `PAC_USER` and `PAC_PASSWORD`; production needs one of the two, not both. Never logged.",
    parse: text,
  }),
  pacUser: str(
    'PAC_USER',
    '',
    "The SW account's user: with `PAC_PASSWORD`, the service gets its own token (`/v2/security/authenticate`, 2 hours) and renews it before it expires, and once on a 401.",
  ),
  pacPassword: setting({ name: 'PAC_PASSWORD', fallback: '', secret: true, doc: 'The password of `PAC_USER`. Never logged.', parse: text }),
  pacAuthRetryMs: int(
    'PAC_AUTH_RETRY_MS',
    60_000,
    'While the PAC refuses the credentials, stamping and cancelling pause (jobs wait, no attempt spent) this long between tries.',
    100,
  ),
  pacTimeoutMs: int('PAC_TIMEOUT_MS', 30_000, 'Timeout of one stamp call.'),
  pacAttempts: int('PAC_ATTEMPTS', 8, 'Attempts of a stamp job on timeouts and 5xx before it waits for the reconciliation sweep.', 1),
  pacBackoffMs: int(
    'PAC_BACKOFF_MS',
    2000,
    'First retry delay of a stamp job; each next one doubles. Also how long the stamp and cancel queues pause when the PAC throttles (429) without a Retry-After.',
  ),
  stampBatchMs: int(
    'STAMP_BATCH_MS',
    50,
    "How long an API process gathers buyers' confirmations into one stamp batch job (at most 32 each; 0: only those of the same moment). A confirmation's answer waits for its batch's job to be queued.",
    0,
  ),
  stampSweepMs: int(
    'STAMP_SWEEP_MS',
    60_000,
    'Period of the sweeps re-queueing confirmations left STAMPING and stamped invoices without their e-mail job, and how old they must be.',
  ),
  stampGiveUpMs: int(
    'STAMP_GIVE_UP_MS',
    86_400_000,
    "How long an invoice may stay STAMPING (from its confirmation, or an operator's retry) before the sweep stops re-queueing it and it needs attention (`autofactura_needs_attention{kind=\"invoice\"}`, docs/operations.md). Well within SAT's 72-hour window, so an operator's retry sends the same sealed document.",
    60_000,
  ),
  crashAfterCommit: setting({
    name: 'CRASH_AFTER_COMMIT',
    fallback: '0',
    doc: 'Fault injection for `npm run chaos`: the probability of a SIGKILL right after a commit, before its job is queued. Refused in production.',
    parse: probability,
  }),
  satStatusUrl: str('SAT_STATUS_URL', 'https://consultaqr.facturaelectronica.sat.gob.mx/ConsultaCFDIService.svc', "SAT's CFDI status service (SOAP)."),
  cancellationPollMs: int('CANCELLATION_POLL_MS', 600_000, 'How often cancellations waiting for the receptor are asked about, and lost requests re-queued.'),
  satNotFoundGraceMs: int(
    'SAT_NOT_FOUND_GRACE_MS',
    72 * 3600_000,
    "How long a cancelled CFDI that SAT's status service answers `N - 602` (not found) for is asked about again before it needs attention (SAT's verifier asks to wait up to 72 h for a recent CFDI).",
  ),
  cancellationPendingMaxMs: int(
    'CANCELLATION_PENDING_MAX_MS',
    10 * 86_400_000,
    "How long a cancellation may wait for the receptor before it needs attention (SAT's term is 3 business days, then `Plazo vencido`; a request asked again after a rejection has none).",
  ),
  webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 'Per-attempt timeout of a webhook delivery.'),
  webhookAttempts: int('WEBHOOK_ATTEMPTS', 14, 'Attempts before a delivery is FAILED (14 from 5 s, doubling, span about a day).', 1),
  webhookBackoffMs: int('WEBHOOK_BACKOFF_MS', 5000, 'First retry delay of a delivery; each next one doubles.'),
  webhookAllowPrivate: setting({
    name: 'WEBHOOK_ALLOW_PRIVATE',
    fallback: (mode) => (mode === 'production' ? '0' : '1'),
    shownDefault: '`1` outside production, `0` in production',
    doc: '`1` lets webhook endpoints be loopback, private or link-local addresses (local receivers); `0` refuses them at registration and at delivery.',
    parse: flag,
  }),
  apiKeyRatePerMin: int('API_KEY_RATE_PER_MIN', 1200, 'Requests per minute per API key on the merchant routes (sliding window; 429 with `Retry-After`).', 1),
  apiKeyFailuresPerIp: int(
    'API_KEY_FAILURES_PER_IP',
    60,
    'Wrong or revoked API keys per minute per client IP before its API-key requests get 429 (checked before a key is looked up in PostgreSQL; a key the API process already holds as good is not refused).',
    1,
  ),
  managementRatePerIp: int('MANAGEMENT_RATE_PER_IP', 600, 'Requests per minute per client IP on the bearer-token routes and `POST /v1/auth/token`.', 1),
  webhookDispatchMs: int('WEBHOOK_DISPATCH_MS', 1000, 'How often committed events become deliveries (at least 100).', 100),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 8000, 'SIGTERM: how long requests and jobs in flight may take before the process exits anyway.'),
  trustProxyHops: int(
    'TRUST_PROXY',
    0,
    'How many proxies in front of the API append to `X-Forwarded-For` (`1` behind one load balancer): the client IP (rate limits, logs) is the entry the outermost of them saw; `0` uses the socket address. Entries a client writes itself are never believed.',
  ),
  globalInvoiceCheckMs: int('GLOBAL_INVOICE_CHECK_MS', 900_000, 'How often closed periods are looked at for unclaimed sales (at least 1000).', 1000),
  globalInvoiceGraceMs: int(
    'GLOBAL_INVOICE_GRACE_MS',
    3_600_000,
    "How long after a period's close its global invoice waits (confirmations in flight at the close finish stamping).",
  ),
  smtpUrl: setting({
    name: 'SMTP_URL',
    fallback: '',
    secret: true,
    doc: '`smtp://user:pass@host:port` for invoice e-mails. Left empty, the development entries start a fake SMTP server; required by the production entries.',
    parse: text,
  }),
  mailFrom: str('MAIL_FROM', 'Facturación <facturas@localhost>', 'Sender of invoice e-mails.'),
  smtpTimeoutMs: int('SMTP_TIMEOUT_MS', 15_000, 'Deadline of one message.'),
  emailBackoffMs: int('EMAIL_BACKOFF_MS', 5000, 'First retry delay of an invoice e-mail; each next one doubles.'),
  emailSendsPerQrPerDay: int('EMAIL_SENDS_PER_QR_PER_DAY', 5, '"Send the invoice again" requests per QR per day (the first e-mail after stamping is not counted).'),
  exportsInProgressPerAccount: int(
    'EXPORTS_IN_PROGRESS_PER_ACCOUNT',
    2,
    'ZIP exports an account may have being built at once; another is 429 `export_limit_reached` until one is done.',
    1,
  ),
  exportsKeptPerAccount: int(
    'EXPORTS_KEPT_PER_ACCOUNT',
    20,
    "ZIP exports an account may have kept at once (building or built, each kept `EXPORT_KEEP_DAYS`): a bound on the store's disk per account.",
    1,
  ),
  exportDownloadsPerMinute: int(
    'EXPORT_DOWNLOADS_PER_MINUTE',
    10,
    "Downloads of one export's ZIP per minute through its credential-free link (each IP is also under `PUBLIC_RATE_PER_IP`); past it 429 with Retry-After.",
    1,
  ),
  offlineClaimEmailsPerAddressPerDay: int(
    'OFFLINE_CLAIM_EMAILS_PER_ADDRESS_PER_DAY',
    3,
    'E-mails telling a buyer why an offline ticket they claimed was not invoiced, per address per 24 hours: whoever holds an offline key can make claims for any address, so the ones past this are not sent.',
    1,
  ),
  fakeDataDir: setting({
    name: 'FAKE_DATA_DIR',
    fallback: (mode) => (mode === 'test' ? '' : 'var/fakes'),
    shownDefault: '`var/fakes` (empty under `NODE_ENV=test`)',
    doc: "Development: where the built-in fakes keep what the real party would (the fake PAC's stamps in `pac-stamps.jsonl`, every message the fake SMTP server accepted in `mail/*.eml`) and the development operator password's hash and metrics token (`operator-credentials.json`, mode 0600); empty = memory only.",
    parse: text,
  }),
  publicRatePerIp: int('PUBLIC_RATE_PER_IP', 120, 'Requests per minute on the buyer routes per client IP (429 with `Retry-After` above).'),
  publicRatePerToken: int('PUBLIC_RATE_PER_TOKEN', 60, 'Requests per minute on the buyer routes per QR.'),
  publicCodeRatePerIp: int('PUBLIC_CODE_RATE_PER_IP', 10, 'Short-code lookups per minute per client IP: low, since a code is guessed by trying.'),
  metricsToken: setting({
    name: 'METRICS_TOKEN',
    fallback: '',
    secret: true,
    doc: 'The bearer token Prometheus presents to read `/metrics` of the API and the worker process; empty = no metrics served.',
    parse: text,
  }),
  workerMetricsPort: int('WORKER_METRICS_PORT', 9464, "The worker process's `/metrics` listener; `0` = none."),
  fileStore: setting({
    name: 'FILE_STORE',
    fallback: 'disk',
    doc: 'Where logos, XML and PDF live: `disk`, or, when machines share no disk, `postgres` or `s3` (an S3-compatible bucket, `S3_*` below).',
    parse: fileStoreKind,
  }),
  fileStoreDir: str('FILE_STORE_DIR', 'var/files', "The disk store's directory; every process of one deployment must see the same one."),
  s3Bucket: str('S3_BUCKET', '', 'With `FILE_STORE=s3`: the bucket (required). It needs no public access: the service serves its files itself.'),
  s3Endpoint: setting({
    name: 'S3_ENDPOINT',
    fallback: '',
    doc: "An S3-compatible service's URL (MinIO, Cloudflare R2, …), addressed path-style (`$S3_ENDPOINT/$S3_BUCKET/key`); empty = AWS S3 in `S3_REGION`.",
    parse: (raw, name) => {
      if (raw !== '' && !/^https?:$/.test(URL.parse(raw)?.protocol ?? '')) throw new Error(`config: ${name} must be an http(s) URL, got "${raw}"`);
      return withoutTrailingSlash(raw);
    },
  }),
  s3Region: str('S3_REGION', 'us-east-1', "The bucket's region (`auto` on Cloudflare R2)."),
  s3AccessKeyId: str('S3_ACCESS_KEY_ID', '', "The bucket's access key; empty = the SDK's default chain (instance or task role, `AWS_*` variables, shared profile)."),
  s3SecretAccessKey: setting({ name: 'S3_SECRET_ACCESS_KEY', fallback: '', secret: true, doc: 'The secret of `S3_ACCESS_KEY_ID`; set both or neither.', parse: text }),
  adminUser: str('ADMIN_USER', 'ops', "The operator's login to the status page (`/admin/status`) and the queue dashboard (`/admin/queues`)."),
  adminPasswordHash: setting({
    name: 'ADMIN_PASSWORD_HASH',
    fallback: '',
    secret: true,
    doc: "scrypt hash of the operator's password (`npm run cli -- admin-password`); no hash = no status page and no queue dashboard.",
    parse: text,
  }),
  adminLoginFailuresPerIp: int('ADMIN_LOGIN_FAILURES_PER_IP', 10, 'Wrong operator logins per client IP per 15 minutes before 429.', 1),
};

type Settings = typeof SETTINGS;
export type Config = { env: Mode } & { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** NODE_ENV as the service reads it: anything but production and test is development. */
export function modeOf(env: NodeJS.ProcessEnv): Mode {
  return env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const mode = modeOf(env);
  const values: Record<string, unknown> = { env: mode };
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[s.name];
    const given = raw === undefined || raw === '' ? (typeof s.fallback === 'function' ? s.fallback(mode, env) : s.fallback) : raw;
    values[key] = s.parse(given, s.name);
  }
  const config = values as Config;
  // A delivery reads its event (payload, type): the event's day must outlive the delivery's, made up to a day later.
  if (config.webhookEventRetentionDays <= config.webhookDeliveryRetentionDays) {
    throw new Error('config: WEBHOOK_EVENT_RETENTION_DAYS must be more than WEBHOOK_DELIVERY_RETENTION_DAYS (a delivery reads its event)');
  }
  if (config.redisClusterNodes.length > 0 && config.redisSentinels.length > 0) throw new Error('config: REDIS_CLUSTER_NODES and REDIS_SENTINELS exclude each other');
  if (config.redisClusterNodes.length > 0) config.queuePrefix = hashTagged(config.queuePrefix);
  const outside = config.workerShards.find((n) => n >= config.queueShards);
  if (outside !== undefined) throw new Error(`config: WORKER_SHARDS names shard ${outside}, but QUEUE_SHARDS=${config.queueShards} (shards 0 to ${config.queueShards - 1})`);
  if (config.fileStore === 's3' && !config.s3Bucket) throw new Error('config: FILE_STORE=s3 needs S3_BUCKET, the bucket that holds the logos, XML and PDF');
  // One without the other would sign with half a key, or silently fall back to the default chain.
  if (!config.s3AccessKeyId !== !config.s3SecretAccessKey) throw new Error('config: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all');
  // A CA file beside a plain redis:// URL is never read: the operator believes in a TLS the connection does not have.
  if (config.redisTlsCaFile && new URL(config.redisUrl).protocol !== 'rediss:') {
    throw new Error('config: REDIS_TLS_CA_FILE is set but REDIS_URL is not rediss:// (TLS): the CA would never be used; use rediss:// or drop the file');
  }
  // Two kinds of credentials at once would leave which one stamps to chance; a user without a password never authenticates.
  if (config.pacToken && (config.pacUser || config.pacPassword)) throw new Error('config: set PAC_TOKEN or PAC_USER and PAC_PASSWORD, not both');
  if (!config.pacUser !== !config.pacPassword) throw new Error('config: PAC_USER and PAC_PASSWORD are set together or not at all');
  if (mode === 'production') {
    for (const key of ['qrHmacKey', 'urlSigningKey'] as const) {
      if (config[key] === DEV_SECRETS[key]) throw new Error(`config: ${key} must be set in production`);
      if (Buffer.byteLength(config[key], 'utf8') < MIN_SIGNING_KEY_BYTES) {
        throw new Error(`config: ${key} must be at least ${MIN_SIGNING_KEY_BYTES} bytes in production (\`openssl rand -hex 32\`)`);
      }
    }
    // The development keys are public (they are in this file): one still accepted would let anyone sign or seal.
    if (config.qrHmacPreviousKeys.includes(DEV_SECRETS.qrHmacKey)) throw new Error('config: QR_HMAC_PREVIOUS_KEYS must not hold the development key in production');
    const devEncryptionKey = parseEncryptionKey(DEV_SECRETS.encryptionKey);
    // Compared as bytes: the development key written in base64 is the same key.
    if (isEncryptionKey(config.encryptionKey) && parseEncryptionKey(config.encryptionKey).equals(devEncryptionKey)) {
      throw new Error('config: encryptionKey must be set in production (ENCRYPTION_KEY is the development key)');
    }
    const devPrevious = config.encryptionPreviousKeys.find((k) => parseEncryptionKey(k.key).equals(devEncryptionKey));
    if (devPrevious) throw new Error(`config: ENCRYPTION_PREVIOUS_KEYS key id ${devPrevious.id} is the development key, refused in production`);
    if (!config.csfBaseUrl) throw new Error('config: CSF_BASE_URL must be set in production (the fake CSF service is for development)');
    if (!config.pacBaseUrl || (!config.pacToken && !config.pacUser))
      throw new Error('config: PAC_BASE_URL and PAC_TOKEN (or PAC_USER and PAC_PASSWORD) must be set in production (the fake PAC is for development)');
    if (!config.smtpUrl) throw new Error('config: SMTP_URL must be set in production (the fake SMTP server is for development)');
    if (config.crashAfterCommit !== 0) throw new Error('config: CRASH_AFTER_COMMIT is fault injection for tests; it must not be set in production');
  }
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
      throw new Error(`config: ${(err as Error).message}`, { cause: err });
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

/** The development operator password's hash and metrics token (bin/dev-operator-credentials.ts), when kept. */
export function devOperatorCredentialsFile(cfg: Pick<Config, 'fakeDataDir'>): string | undefined {
  return cfg.fakeDataDir ? join(cfg.fakeDataDir, 'operator-credentials.json') : undefined;
}

/** The fake PAC's journal of stamps, when the fakes keep their data. */
export function fakePacJournal(cfg: Pick<Config, 'fakeDataDir'>): string | undefined {
  return cfg.fakeDataDir ? join(cfg.fakeDataDir, 'pac-stamps.jsonl') : undefined;
}
