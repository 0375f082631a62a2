import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
// Loaded first by mocha (see .mocharc.json): the environment every module's config() will read.
process.env.NODE_ENV = 'test';
process.env.QUEUE_PREFIX ??= `aftest${process.pid}`;
process.env.PUBLIC_BASE_URL ??= 'https://factura.example.test';
process.env.LOG_LEVEL ??= 'silent';
// Not the development key of zeros: test/hardening/secrets-at-rest.test.ts searches a dump for the key's text,
// and 64 zeros are in any dump that holds a run of zero bytes another test wrote.
process.env.ENCRYPTION_KEY ??= createHash('sha256').update('autofactura test suite encryption key').digest('hex');
process.env.EXPIRY_SWEEP_MS ??= '3600000';
// POST /v1/qrs waits for the QR image job; under load it has taken more than the 5 s default.
process.env.RENDER_TIMEOUT_MS ??= '15000';
// Budgets survive this machine's timers, which fire up to ~1.5 s late, and the fake PAC's xmllint run (1-5 s
// under load); a test of a hanging service pays one budget. Backoff stays short so retry paths stay fast.
process.env.CSF_TIMEOUT_MS ??= '5000';
process.env.CSF_ATTEMPTS ??= '3';
process.env.CSF_BACKOFF_MS ??= '20';
process.env.PAC_TIMEOUT_MS ??= '5000';
process.env.PAC_ATTEMPTS ??= '4';
process.env.PAC_BACKOFF_MS ??= '20';
// While the fake PAC refuses the credentials, stamping pauses this long between tries (60 s in production).
process.env.PAC_AUTH_RETRY_MS ??= '300';
// smtp-server greets after its own 100 ms timer: up to 3 s late here.
process.env.SMTP_TIMEOUT_MS ??= '10000';
process.env.EMAIL_BACKOFF_MS ??= '20';
process.env.PUBLIC_RATE_PER_IP ??= '100000';
process.env.PUBLIC_RATE_PER_TOKEN ??= '100000';
process.env.PUBLIC_CODE_RATE_PER_IP ??= '100000';
// Limits per API key and per IP stay out of the way; test/hardening/client-rate-limits.test.ts builds its own app with low ones.
process.env.API_KEY_RATE_PER_MIN ??= '10000000';
process.env.MANAGEMENT_RATE_PER_IP ??= '10000000';
process.env.API_KEY_FAILURES_PER_IP ??= '10000000';
// Reading an uploaded CSF runs pdftoppm and jsQR for real; a loaded CI machine needs more than a phone's budget.
process.env.CSF_READ_TIMEOUT_MS ??= '15000';
process.env.STAMP_SWEEP_MS ??= '3600000';
process.env.CANCELLATION_POLL_MS ??= '3600000';
// Deliveries are awaited at the receiver; the dispatcher runs often and retries come fast.
process.env.WEBHOOK_DISPATCH_MS ??= '200';
process.env.WEBHOOK_BACKOFF_MS ??= '20';
process.env.WEBHOOK_ATTEMPTS ??= '4';
process.env.WEBHOOK_TIMEOUT_MS ??= '5000';
process.env.GLOBAL_INVOICE_CHECK_MS ??= '3600000';
// The harness API serves /metrics; a worker process a test spawns opens no metrics port (a test starts its own).
process.env.METRICS_TOKEN ??= 'test-metrics-token';
process.env.WORKER_METRICS_PORT ??= '0';
// Each run keeps its files apart (the disk store is the default).
process.env.FILE_STORE_DIR ??= `${tmpdir()}/aftest-files-${process.pid}`;
