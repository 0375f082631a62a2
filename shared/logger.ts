import { pino, type Logger } from 'pino';
import { config } from './config.js';

/**
 * One pino logger. Secrets travel in headers and a few body fields; redaction is the
 * safety net, the first rule is to never pass them to a log call.
 */
export const logger: Logger = pino({
  level: config().logLevel,
  base: { service: 'autofactura-qr' },
  redact: {
    paths: [
      'req.headers["x-api-key"]',
      'req.headers.authorization',
      'headers["x-api-key"]',
      'headers.authorization',
      '*.password',
      '*.apiKey',
      '*.accessToken',
    ],
    censor: '[redacted]',
  },
});

export type { Logger };
