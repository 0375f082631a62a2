// Loaded first by mocha (see .mocharc.json): the environment every module's config() will read.
process.env.NODE_ENV = 'test';
process.env.QUEUE_PREFIX ??= `aftest${process.pid}`;
process.env.PUBLIC_BASE_URL ??= 'https://factura.example.test';
process.env.LOG_LEVEL ??= 'silent';
process.env.EXPIRY_SWEEP_MS ??= '3600000';
