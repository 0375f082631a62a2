import { AppError } from '../../shared/platform/errors.js';

/** 413 with the limit, so a caller knows how much to cut (issue #29). */
export function payloadTooLarge(limit: unknown): AppError {
  if (typeof limit !== 'number') return new AppError(413, 'payload_too_large', 'The request body is larger than the service accepts.');
  const kib = limit % 1024 === 0 ? ` (${limit / 1024} KiB)` : '';
  return new AppError(413, 'payload_too_large', `The request body is larger than the ${limit} bytes${kib} the service accepts.`);
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size as configured ("256kb", "1mb", "65536"; 1 kb = 1024 bytes, as the body parsers read it) in bytes. */
export function byteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!match) throw new Error(`Not a size in bytes: "${text}" (use e.g. 65536, 256kb or 1mb).`);
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}
