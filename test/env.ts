// Loaded first by mocha (see .mocharc.json): the environment every module's config() will read.
process.env.NODE_ENV = 'test';
process.env.QUEUE_PREFIX ??= `aftest${process.pid}`;
process.env.PUBLIC_BASE_URL ??= 'https://factura.example.test';
process.env.LOG_LEVEL ??= 'silent';
process.env.EXPIRY_SWEEP_MS ??= '3600000';
// CSF synchronization: short timeouts and backoff so retry paths run in milliseconds.
process.env.CSF_TIMEOUT_MS ??= '300';
process.env.CSF_ATTEMPTS ??= '3';
process.env.CSF_BACKOFF_MS ??= '20';
// Stamping: short PAC timeouts and backoff so retry paths run in milliseconds.
process.env.PAC_TIMEOUT_MS ??= '800';
process.env.PAC_ATTEMPTS ??= '4';
process.env.PAC_BACKOFF_MS ??= '20';
process.env.SMTP_TIMEOUT_MS ??= '1000';
process.env.EMAIL_BACKOFF_MS ??= '20';
process.env.PUBLIC_RATE_PER_IP ??= '100000';
process.env.PUBLIC_RATE_PER_TOKEN ??= '100000';
process.env.STAMP_SWEEP_MS ??= '3600000';
