import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries `Bearer <METRICS_TOKEN>`. Digests of equal length are
 * compared, so the time taken tells nothing about how much of the token was right.
 */
export function isMetricsToken(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!presented || !token) return false;
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(token).digest());
}
