// The lean server's one Redis round trip before the insert: the per-key rate counter (INCR, and its
// expiry set once) and the idempotency claim (SET NX EX), pipelined on a connection of its own.
import type { Redis } from 'ioredis';

export type Claim = 'ok' | 'rate_limited' | 'key_taken';

export interface ClaimOptions {
  prefix: string;
  apiKey: string;
  idempotencyKey: string;
  saleId: string;
  ratePerMinute: number;
}

const IDEMPOTENCY_SECONDS = 86_400;

export async function claimSale(redis: Redis, o: ClaimOptions): Promise<Claim> {
  const rateKey = `${o.prefix}:lean:rate:${o.apiKey}:${Math.floor(Date.now() / 60_000)}`;
  const results = await redis
    .pipeline()
    .incr(rateKey)
    .expire(rateKey, 120, 'NX')
    .set(`${o.prefix}:lean:idem:${o.apiKey}:${o.idempotencyKey}`, o.saleId, 'EX', IDEMPOTENCY_SECONDS, 'NX')
    .exec();
  if (!results) throw new Error('Redis pipeline was discarded');
  for (const [err] of results) if (err) throw err;
  if (Number(results[0]![1]) > o.ratePerMinute) return 'rate_limited';
  return results[2]![1] === 'OK' ? 'ok' : 'key_taken';
}
