import { AppError } from '../../shared/platform/errors.js';

/** Socket errors of a dependency that is down or restarting (node's `code`). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** PostgreSQL SQLSTATE: class 08 connection exception; 57P01–57P03 shutting down, crashed, starting up. */
const PG_UNAVAILABLE = /^(08...|57P0[123])$/;
/** node-postgres and knex say it in the message only. */
const MESSAGES = /^(Connection terminated|Client has encountered a connection error|Knex: Timeout acquiring a connection)/;
/**
 * ioredis says it in the message only (issue #38: a Redis failover answered 500): a connection closed under
 * a command, a fail-fast connection or cluster not ready, a command past its timeout or its retries, and
 * Redis' own replies while a master is away or being replaced.
 */
const REDIS_MESSAGES =
  /^(Connection is closed\.|Command timed out|Stream isn't writeable|Cluster isn't ready|Too many Cluster redirections|Reached the max retries per request limit|(CLUSTERDOWN|TRYAGAIN|READONLY|MASTERDOWN|LOADING) )/;

function unavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
    if (name === 'KnexTimeoutError' || (typeof message === 'string' && (MESSAGES.test(message) || REDIS_MESSAGES.test(message)))) return true;
  }
  return false;
}

/**
 * Issue #8 (`npm run chaos`, pg-crash): while PostgreSQL was down or in crash recovery every request
 * answered 500 `internal_error` (and issue #38: Redis failing over). An unreachable dependency is an
 * outage, not a bug: 503 `service_unavailable` with Retry-After, which clients (and the POS backends'
 * blind retries) expect.
 */
export function dependencyUnavailable(err: unknown): AppError | undefined {
  if (!unavailable(err)) return undefined;
  return new AppError(503, 'service_unavailable', 'A service the API depends on is unavailable; retry shortly (with the same idempotency-key).', {
    cause: err,
    expose: true,
    headers: { 'Retry-After': '1' },
  });
}
