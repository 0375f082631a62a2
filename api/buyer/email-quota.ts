import { AppError } from '../../shared/platform/errors.js';
import type { ApiDeps } from '../deps.js';

const DAY_SECONDS = 86_400;

/**
 * Counts one "send the invoice again" request against its QR's daily allowance
 * (`EMAIL_SENDS_PER_QR_PER_DAY`; the window starts at the first request). Refused requests (a wrong
 * RFC) count too, so the allowance also bounds guessing. Over it: 429 with Retry-After until the window ends.
 */
export async function countInvoiceEmail(deps: Pick<ApiDeps, 'redis' | 'config'>, transactionId: string): Promise<void> {
  const key = `email-sends:${transactionId}`;
  const [[, count], , [, ttl]] = (await deps.redis.multi().incr(key).expire(key, DAY_SECONDS, 'NX').ttl(key).exec()) as [[null, number], [null, number], [null, number]];
  if (count > deps.config.emailSendsPerQrPerDay) {
    const retryAfter = String(Math.max(1, ttl));
    throw new AppError(429, 'email_limit_reached', `This invoice was sent ${deps.config.emailSendsPerQrPerDay} times today; try again tomorrow or download it from the page.`, {
      headers: { 'Retry-After': retryAfter },
    });
  }
}
