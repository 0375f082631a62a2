import { pino, type Logger } from 'pino';

/**
 * A process's pino logger, made by its composition root (shared/platform/runtime.ts). Secrets travel in headers
 * and a few body fields; redaction is the safety net, the first rule is to never pass them to a log call.
 */
export function createLogger(level: string, format: 'json' | 'pretty' = 'json'): Logger {
  return pino({
    level,
    // Development only (LOG_FORMAT=pretty): pino-pretty is a development dependency, loaded in its own thread.
    ...(format === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' } } }
      : {}),
    base: { service: 'autofactura-qr' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization', '*.password', '*.apiKey', '*.accessToken'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
