import { AppError } from '../../shared/platform/errors.js';
import type { ApiDeps } from '../deps.js';

const DAY_SECONDS = 86_400;
/** Wrong RFCs one QR may take a day: a buyer mistypes a few times; a guesser needs millions. */
export const RFC_ATTEMPTS_PER_QR_PER_DAY = 10;

/**
 * Reserves one RFC attempt for a QR before the RFC is compared (atomic: attempts sent at once cannot all
 * slip under the limit), and gives it back when the RFC proves the buyer, so only wrong ones are counted.
 * Over the limit: 429 `rfc_attempts_exceeded` with Retry-After until the day's window ends, even for the
 * right RFC (a guesser must learn nothing more).
 */
export async function reserveRfcAttempt(deps: Pick<ApiDeps, 'redis'>, transactionId: string): Promise<{ refund(): Promise<void> }> {
  const key = `rfc-attempts:${transactionId}`;
  const [[, count], , [, ttl]] = (await deps.redis.multi().incr(key).expire(key, DAY_SECONDS, 'NX').ttl(key).exec()) as [[null, number], [null, number], [null, number]];
  if (count > RFC_ATTEMPTS_PER_QR_PER_DAY) {
    throw new AppError(
      429,
      'rfc_attempts_exceeded',
      `Too many wrong RFCs for this ticket today (${RFC_ATTEMPTS_PER_QR_PER_DAY}); try again tomorrow or use the link in the invoice e-mail.`,
      {
        headers: { 'Retry-After': String(Math.max(1, ttl)) },
      },
    );
  }
  return {
    refund: async () => {
      await deps.redis.decr(key);
    },
  };
}
