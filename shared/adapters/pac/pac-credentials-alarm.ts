/**
 * The one alarm for the PAC refusing the service's credentials: a key in Redis under the service prefix (one
 * per deployment, whatever the number of worker processes), the gauge autofactura_pac_credentials_rejected,
 * one error line when it starts (the process whose SET NX wins writes it) and one info line when a stamp or
 * cancel call succeeds again (the process whose DEL removes the key). The status page reads the key.
 */
import type { Logger } from '../../platform/logger.js';
import { pacCredentialsRejected } from '../../platform/metrics/registry.js';
import type { RedisClient } from '../../platform/redis.js';
import { PacCredentialsRejected, PacRefused, type PacClient, type PacCredentialsProblem } from './pac-client.js';

export const PAC_CREDENTIALS_ALARM_KEY = 'pac-credentials-rejected';

export interface PacCredentialsAlarm {
  /** When the first refusal was seen (ISO 8601). */
  since: string;
  problem: PacCredentialsProblem;
  /** The call refused first. */
  operation: 'stamp' | 'cancel';
  /** SW's answer, as PacCredentialsRejected words it (no secret). */
  message: string;
}

/** How often a process that has not seen the alarm itself checks, on a successful call, whether another raised it. */
const CLEAR_CHECK_MS = 5_000;

/** The alarm, when raised; undefined when not (or unreadable: the caller says Redis did not answer). */
export async function readPacCredentialsAlarm(redis: RedisClient): Promise<PacCredentialsAlarm | undefined> {
  return parsed(await redis.get(PAC_CREDENTIALS_ALARM_KEY));
}

function parsed(raw: string | null): PacCredentialsAlarm | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as PacCredentialsAlarm;
  } catch {
    return undefined;
  }
}

/**
 * The same PacClient, keeping the alarm: a PacCredentialsRejected from stamp or cancel raises it (then passes
 * on), a success (or a refusal of the document, which SW reads only after the token) clears it. Redis failing here never fails the call: the alarm is best effort, the outcome is not.
 */
export function alarmedPacClient(client: PacClient, redis: RedisClient, logger: Pick<Logger, 'error' | 'info' | 'warn'>, nowMs: () => number = Date.now): PacClient {
  let raisedHere = false;
  let nextCheck = 0;

  async function refused(operation: PacCredentialsAlarm['operation'], err: PacCredentialsRejected): Promise<void> {
    pacCredentialsRejected.set(1);
    raisedHere = true;
    const alarm: PacCredentialsAlarm = { since: new Date(nowMs()).toISOString(), problem: err.problem, operation, message: err.message };
    try {
      if ((await redis.set(PAC_CREDENTIALS_ALARM_KEY, JSON.stringify(alarm), 'NX')) === 'OK')
        logger.error({ problem: err.problem, operation, reason: err.message }, 'the PAC refuses the credentials: stamping and cancelling paused until a call succeeds');
    } catch (redisErr) {
      logger.warn({ err: redisErr }, 'PAC credentials alarm not recorded in Redis');
    }
  }

  async function succeeded(): Promise<void> {
    if (!raisedHere && nowMs() < nextCheck) return;
    nextCheck = nowMs() + CLEAR_CHECK_MS;
    try {
      const raw = await redis.getdel(PAC_CREDENTIALS_ALARM_KEY);
      raisedHere = false;
      pacCredentialsRejected.set(0);
      if (raw) logger.info({ since: parsed(raw)?.since }, 'the PAC accepts the credentials again: stamping and cancelling resumed');
    } catch (redisErr) {
      logger.warn({ err: redisErr }, 'PAC credentials alarm not cleared in Redis');
    }
  }

  async function watched<T>(operation: PacCredentialsAlarm['operation'], call: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await call();
    } catch (err) {
      if (err instanceof PacCredentialsRejected) await refused(operation, err);
      // A refused document went past the token: the credentials are taken.
      if (err instanceof PacRefused) await succeeded();
      throw err;
    }
    await succeeded();
    return result;
  }

  return {
    stamp: (sealedXml, options) => watched('stamp', () => client.stamp(sealedXml, options)),
    cancel: (request) => watched('cancel', () => client.cancel(request)),
    status: (query) => client.status(query),
  };
}
