import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { PAC_CREDENTIALS_ALARM_KEY } from '../../shared/adapters/pac/pac-credentials-alarm.js';
import { serviceKeyPrefix } from '../../shared/platform/redis.js';
import { confirmQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { check, type Check, type ScenarioResult } from '../scenario-result.js';

export interface PacTokenOptions {
  /** Confirmations made in each phase. */
  confirmations: number;
  /** How long the PAC refuses the user and password in the second phase. */
  refusedMs: number;
}

const NAME = 'pactoken';
/** Session tokens this short-lived expire several times during the first phase. */
const TOKEN_LIFETIME_MS = 3_000;
const RETRY_MS = 1_000;
const RAISED = 'the PAC refuses the credentials';
const CLEARED = 'the PAC accepts the credentials again';

/**
 * The worker authenticates with a user and password (PAC_USER, PAC_PASSWORD) while buyers confirm:
 * (1) its tokens live 3 s and are also expired at random by the PAC: renewed before expiry or once on a 401,
 * nothing pauses, no alarm; (2) the PAC refuses the password (changed at SW, the service not told) for
 * `refusedMs`: stamping pauses with one alarm, no job fails or spends its attempts; the password is taken
 * again: the alarm clears once and the backlog stamps. Throughout: every confirmed QR INVOICED once, one PAC
 * stamp per invoice, no process exits.
 */
export async function pacToken(ctx: ChaosContext, options: PacTokenOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const { password } = ctx.pac.credentials;
  const lifetime = ctx.pac.tokenLifetimeMs;
  ctx.pac.tokenLifetimeMs = TOKEN_LIFETIME_MS;
  const services = await startServices(ctx, NAME, {
    PAC_TOKEN: '',
    PAC_USER: ctx.pac.credentials.user,
    PAC_PASSWORD: password,
    PAC_AUTH_RETRY_MS: String(RETRY_MS),
  });
  const redis = new Redis(ctx.redisUrl, { keyPrefix: serviceKeyPrefix(services.queuePrefix) });
  const history = new History();
  const checks: Check[] = [];
  const counts: string[] = [];
  const timings: string[] = [];
  const workerLines = async (text: string) => (await readFile(join(ctx.workDir, `${NAME}-worker.log`), 'utf8')).split('\n').filter((l) => l.includes(text)).length;
  const authSince = (from: number, outcome: string) => ctx.pac.auth.slice(from).filter((a) => a.outcome === outcome).length;

  /** Confirmations spread over `spreadMs`, calling `during` between them; the QR ids confirmed (202). */
  async function confirmSome(spreadMs: number, during: (i: number) => void = () => undefined): Promise<string[]> {
    const confirmed: string[] = [];
    for (let i = 0; i < options.confirmations; i++) {
      during(i);
      const key = randomUUID();
      const qr = await history.record('create', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key));
      if (qr.status !== 201) continue;
      const body = qr.body as { qr_id: string; qr_content: string };
      if ((await history.record('confirm', body.qr_id, () => confirmQr(services.baseUrl, body.qr_content))).status === 202) confirmed.push(body.qr_id);
      await sleep(spreadMs / options.confirmations);
    }
    return confirmed;
  }

  const invoicedOnce = async (qrIds: string[]) => {
    const invoices = (await ctx.db('invoices').whereIn('transaction_id', qrIds).select('uuid', 'status')) as { uuid: string | null; status: string }[];
    const qrs = (await ctx.db('qr_transactions').whereIn('id', qrIds).pluck('status')) as string[];
    const uuids = invoices.map((i) => i.uuid).filter((u): u is string => u !== null);
    const stampsEach = uuids.map((uuid) => ctx.pac.calls.filter((c) => c.uuid === uuid && c.outcome === 'stamped').length);
    return {
      ok: qrs.length === qrIds.length && qrs.every((s) => s === 'INVOICED') && invoices.length === qrIds.length && invoices.every((i) => i.status === 'ACTIVE'),
      oneStampEach: new Set(uuids).size === qrIds.length && stampsEach.every((n) => n === 1),
      detail: `${qrs.filter((s) => s === 'INVOICED').length}/${qrIds.length} INVOICED, ${invoices.filter((i) => i.status === 'REFUSED').length} refused, stamps per invoice ${Math.min(...stampsEach, 1)}–${Math.max(...stampsEach, 0)}`,
    };
  };
  const allInvoiced = (qrIds: string[]) => async () => (await invoicedOnce(qrIds)).ok;

  try {
    // (1) Tokens expiring under load.
    const authFrom = ctx.pac.auth.length;
    const expiring = await confirmSome(6_000, (i) => {
      if (i % 3 === 2) ctx.pac.expireTokens();
    });
    const drained1 = await waitFor(allInvoiced(expiring), 60_000);
    const phase1 = await invoicedOnce(expiring);
    const renewals = authSince(authFrom, 'authenticated');
    const unauthorized1 = authSince(authFrom, '401 stamp');
    counts.push(`expiring tokens: ${expiring.length} confirmed, ${renewals} authentications, ${unauthorized1} stamps answered 401 (each sent again once)`);
    checks.push(
      check('tokens expiring: every QR INVOICED once, one PAC stamp each', drained1 !== undefined && phase1.ok && phase1.oneStampEach, phase1.detail),
      check('tokens expiring: renewed, no alarm', (await workerLines(RAISED)) === 0 && (await redis.exists(PAC_CREDENTIALS_ALARM_KEY)) === 0, `${renewals} authentications`),
    );

    // (2) The password refused under load, then taken again.
    const refusedFrom = ctx.pac.auth.length;
    ctx.pac.credentials.password = `${password}-changed-at-sw`;
    ctx.pac.expireTokens();
    const refusedAt = Date.now();
    const callsFrom = ctx.pac.calls.length;
    const raising = waitFor(async () => (await redis.exists(PAC_CREDENTIALS_ALARM_KEY)) === 1, 30_000);
    const waiting = await confirmSome(Math.min(options.refusedMs, 6_000));
    const raised = await raising;
    await sleep(Math.max(0, refusedAt + options.refusedMs - Date.now()));
    const statuses = (await ctx.db('invoices').whereIn('transaction_id', waiting).pluck('status')) as string[];
    const refusedAuth = authSince(refusedFrom, 'refused AU2000');
    const stampCallsRefused = ctx.pac.calls.length - callsFrom;
    ctx.pac.credentials.password = password;
    const drained2 = await waitFor(allInvoiced(waiting), 60_000);
    const cleared = await waitFor(async () => (await redis.exists(PAC_CREDENTIALS_ALARM_KEY)) === 0, 30_000);
    await sleep(500); // the worker's log stream flushes
    const phase2 = await invoicedOnce(waiting);
    const failedLines = await workerLines('"job failed');
    counts.push(
      `password refused ${(options.refusedMs / 1000).toFixed(0)} s: ${waiting.length} confirmed, ${refusedAuth} refused authentications (a few after each ${RETRY_MS / 1000} s pause), ${stampCallsRefused} stamp calls, invoices meanwhile ${[...new Set(statuses)].join('/')}`,
    );
    checks.push(
      check('password refused: alarm raised, one log line', raised !== undefined && (await workerLines(RAISED)) === 1, `${await workerLines(RAISED)} line(s)`),
      check('password refused: paused, nothing failed or refused', statuses.every((s) => s === 'STAMPING') && failedLines === 0, `${failedLines} job failure lines`),
      check('password taken again: alarm cleared once', cleared !== undefined && (await workerLines(CLEARED)) === 1, `${await workerLines(CLEARED)} line(s)`),
      check('password taken again: every QR INVOICED once, one PAC stamp each', drained2 !== undefined && phase2.ok && phase2.oneStampEach, phase2.detail),
      check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
    );
    timings.push(
      `tokens expiring: drained ${drained1 === undefined ? 'never' : `${(drained1 / 1000).toFixed(1)} s`} after the last confirmation`,
      `alarm ${raised === undefined ? 'never' : `${(raised / 1000).toFixed(1)} s`} after the password changed; backlog drained ${drained2 === undefined ? 'never' : `${(drained2 / 1000).toFixed(1)} s`} after the fix (≤ ${RETRY_MS / 1000} s pause)`,
    );
    return {
      scenario: `PAC token expiring (3 s tokens) and credentials refused ${options.refusedMs / 1000} s under load`,
      counts: counts.join('; '),
      checks,
      timings: timings.join('; '),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    ctx.pac.credentials.password = password;
    ctx.pac.tokenLifetimeMs = lifetime;
    redis.disconnect();
    await services.stop();
  }
}
