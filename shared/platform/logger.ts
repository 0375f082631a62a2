import { pino, type Logger } from 'pino';

/**
 * A process's pino logger, made by its composition root (shared/platform/runtime.ts). Secrets travel in headers
 * and a few body fields; redaction is the safety net, the first rule is to never pass them to a log call.
 */
export function createLogger(level: string, format: 'json' | 'pretty' = 'json', colour: boolean = process.stdout.isTTY === true): Logger {
  return pino({
    level,
    // Development only (LOG_FORMAT=pretty): pino-pretty is a development dependency, loaded in its own thread.
    // Colour only on a terminal: a log sent to a file or a pipe (`npm start > dev.log`, `| grep`) stays plain
    // text. Decided here, where stdout is known; the transport's thread cannot see whether it is a TTY.
    ...(format === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { colorize: colour, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' } } }
      : {}),
    base: { service: 'autofactura-qr' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization', '*.password', '*.apiKey', '*.accessToken'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
