import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { QUEUES } from '../../shared/platform/jobs.js';
import { confirmQr, getQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, tally, type Answer } from '../http-call.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface MassExpiryOptions {
  /** QRs whose expires_at all fall inside one window. */
  expiring: number;
  /** The window's length: the expiries are spread uniformly over it. */
  windowMs: number;
}

/** Concurrent clients creating the QRs. */
const CONNECTIONS = 50;
/** The target: every QR EXPIRED at most this long after its expires_at. */
const TARGET_MS = 2000;
/**
 * The production default: the delayed expiry buckets (`expire-due-qrs`), not the sweep, have to meet the target (the other
 * scenarios run the sweep every 5 s, which would hide a slow job path).
 */
const SWEEP_MS = 60_000;
/** QRs expiring two hours later, created first (they also measure the creation rate): never expired here. */
const LATER = 300;
/** QRs inside the window that a buyer confirms before it opens: confirmed QRs never expire. */
const CONFIRMED = 20;
const POLL_MS = 200;

interface Row {
  id: string;
  status: string;
  expires_at: Date;
  expired_at: Date | null;
}

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!);
const s = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never');

/**
 * `expiring` QRs created over the API whose expires_at are spread uniformly over one `windowMs` window
 * that opens after the last of them is created. Every one must be EXPIRED at most 2 s after its
 * expires_at, on the database's clock: expired_at (the expiring transaction's now()) − expires_at, and
 * also the first poll (every 200 ms, statement_timestamp()) that saw the row EXPIRED − expires_at.
 * QRs confirmed by a buyer and QRs expiring later must stay as they are.
 */
export async function massExpiry(ctx: ChaosContext, options: MassExpiryOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, 'massexpiry', { EXPIRY_SWEEP_MS: String(SWEEP_MS) });
  const history = new History();
  // A POS answered 503 (the API shedding load: qr_render_timeout, with Retry-After) retries with the same key.
  const createAll = async (op: string, requests: { key: string; body: ReturnType<typeof saleBody> }[]) => {
    const answers: Answer[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let r = requests[next++]; r; r = requests[next++]) {
          const item = r;
          let answer = await history.record(op, item.key, () => postQr(ctx, services.baseUrl, item.body, item.key));
          for (let attempt = 1; attempt < 5 && answer.status === 503; attempt++) {
            await sleep(Number(answer.headers?.get('retry-after') ?? 1) * 1000);
            answer = await history.record(op, item.key, () => postQr(ctx, services.baseUrl, item.body, item.key));
          }
          answers.push(answer);
        }
      }),
    );
    return answers.filter((a) => a.status === 201).map((a) => a.body as { qr_id: string; qr_content: string });
  };
  try {
    // Warm-up: QRs expiring two hours later, timed, so the window can open after the creation phase.
    const laterAt = new Date(Date.now() + 2 * 3_600_000);
    const warmStarted = performance.now();
    const later = await createAll(
      'later',
      Array.from({ length: LATER }, () => ({ key: randomUUID(), body: saleBody(ctx, laterAt) })),
    );
    const warmRate = LATER / ((performance.now() - warmStarted) / 1000);

    const total = options.expiring + CONFIRMED;
    // 1.5 times the warm-up's pace (the warmed-up API is faster) and 10 s more: the window opens after the
    // last creation even if the API slows down.
    const windowStart = Date.now() + Math.ceil((1.5 * total) / warmRate) * 1000 + 10_000;
    const windowEnd = windowStart + options.windowMs;
    const requests = Array.from({ length: total }, (_, i) => {
      const expiresAt = new Date(windowStart + Math.floor(((i + 0.5) / total) * options.windowMs));
      return { key: randomUUID(), body: saleBody(ctx, expiresAt) };
    });
    // Created in random order of expiry, as many POS would.
    for (let i = requests.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [requests[i], requests[j]] = [requests[j]!, requests[i]!];
    }
    const createStarted = performance.now();
    const created = await createAll('create', requests);
    const createSeconds = (performance.now() - createStarted) / 1000;
    const createdAt = Date.now();

    const toConfirm = created.slice(0, CONFIRMED);
    await Promise.all(toConfirm.map((qr) => history.record('confirm', qr.qr_id, () => confirmQr(services.baseUrl, qr.qr_content))));
    const confirmedIds = history
      .of('confirm')
      .filter((e) => e.answer.status === 202)
      .map((e) => e.key);
    const confirmedSet = new Set(toConfirm.map((q) => q.qr_id));
    const expiringIds = created.map((q) => q.qr_id).filter((id) => !confirmedSet.has(id));
    const openedAfterCreation = windowStart - Date.now();

    // Watch the window on the database's clock: when each QR is first seen EXPIRED.
    const seen = new Map<string, number>();
    let remaining = expiringIds;
    const pollUntil = windowEnd + 60_000;
    await sleep(Math.max(0, windowStart - 1000 - Date.now()));
    while (remaining.length > 0 && Date.now() < pollUntil) {
      const polled = performance.now();
      for (let i = 0; i < remaining.length; i += 10_000) {
        const rows = (await ctx
          .db('qr_transactions')
          .whereIn('id', remaining.slice(i, i + 10_000))
          .where({ status: 'EXPIRED' })
          .select('id', ctx.db.raw('statement_timestamp() as seen'))) as { id: string; seen: Date }[];
        for (const r of rows) seen.set(r.id, r.seen.getTime());
      }
      remaining = remaining.filter((id) => !seen.has(id));
      await sleep(Math.max(0, POLL_MS - (performance.now() - polled)));
    }

    // The jobs behind the first ones find their QRs expired: how long until the expiry queue is empty.
    const expiryQueue = new Queue(QUEUES.expiry, { connection: { url: ctx.redisUrl }, prefix: services.queuePrefix });
    const drained = await waitFor(
      async () => {
        const c = await expiryQueue.getJobCounts('wait', 'active');
        if ((c.wait ?? 0) + (c.active ?? 0) > 0) return false;
        // Still delayed: the schedulers' next runs (the QRs expiring two hours later have no bucket yet).
        return (await expiryQueue.getDelayed(0, 1)).every((j) => j.name !== 'expire-due-qrs' || j.timestamp + j.delay > windowEnd + 3_600_000);
      },
      Math.max(0, windowEnd + 120_000 - Date.now()),
    ).finally(() => expiryQueue.close());
    const drainedAfter = drained === undefined ? Infinity : Date.now() - windowEnd;

    const rows = new Map(((await ctx.db('qr_transactions').whereIn('id', expiringIds).select('id', 'status', 'expires_at', 'expired_at')) as Row[]).map((r) => [r.id, r]));
    const expired = [...rows.values()].filter((r) => r.status === 'EXPIRED' && r.expired_at);
    const inWindow = [...rows.values()].filter((r) => r.expires_at.getTime() >= windowStart && r.expires_at.getTime() <= windowEnd);
    const lateness = expired.map((r) => r.expired_at!.getTime() - r.expires_at.getTime()).sort((a, b) => a - b);
    const visible = expiringIds.map((id) => (seen.has(id) ? seen.get(id)! - rows.get(id)!.expires_at.getTime() : Infinity)).sort((a, b) => a - b);
    const early = lateness.filter((l) => l < 0).length;
    const maxLate = expired.length === expiringIds.length ? lateness.at(-1)! : Infinity;
    const p99 = expired.length === expiringIds.length ? quantile(lateness, 0.99) : Infinity;

    // The merchant's view of a sample.
    const sample = [...expiringIds].sort(() => Math.random() - 0.5).slice(0, 200);
    let nextGet = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let id = sample[nextGet++]; id; id = sample[nextGet++]) {
          const qrId = id;
          await history.record('get', qrId, () => getQr(ctx, services.baseUrl, qrId));
        }
      }),
    );
    const gets = history.of('get');
    const getsExpired = gets.filter((e) => e.answer.status === 200 && (e.answer.body as { status?: string }).status === 'EXPIRED');

    const laterRows = (await ctx
      .db('qr_transactions')
      .whereIn(
        'id',
        later.map((q) => q.qr_id),
      )
      .select('status')) as { status: string }[];
    const confirmedRows = (await ctx.db('qr_transactions').whereIn('id', confirmedIds).select('status')) as { status: string }[];
    const creates = history.of('create');
    const attempts = [...creates, ...history.of('later')];
    const shed = attempts.filter(
      (e) => e.answer.status === 503 && (e.answer.body as { error?: { code?: string } } | undefined)?.error?.code === 'qr_render_timeout' && e.answer.headers?.get('retry-after'),
    );
    const fivexx = attempts.filter((e) => e.answer.status >= 500 || e.answer.status === 0).filter((e) => !shed.includes(e));
    if (process.env.CHAOS_KEEP_LOGS === '1') await history.save(`${ctx.workDir}/mass-expiry-history.jsonl`);
    return {
      scenario: `${options.expiring.toLocaleString('en')} QRs expiring within ${options.windowMs / 1000} s (EXPIRY_SWEEP_MS ${SWEEP_MS / 1000} s)`,
      counts: `${created.length}/${total} created at ${CONNECTIONS} connections (${creates.length} attempts: ${tally(creates.map((e) => answerLabel(e.answer)))}), ${CONFIRMED} of them confirmed (${tally(history.of('confirm').map((e) => answerLabel(e.answer)))}); ${later.length} expiring 2 h later; ${gets.length} GETs after the window`,
      checks: [
        check(
          'every sale created (201), 0 5xx but load shedding',
          created.length === total && fivexx.length === 0,
          `${created.length}/${total} × 201; ${fivexx.length} 5xx or no answer; ${shed.length} × 503 qr_render_timeout with Retry-After, retried with the same key`,
        ),
        check(
          'the window opened after the last creation',
          openedAfterCreation > 0,
          `${s(openedAfterCreation)} after; ${inWindow.length}/${expiringIds.length} expires_at inside it`,
        ),
        check(`all ${expiringIds.length} EXPIRED`, expired.length === expiringIds.length && expiringIds.length === options.expiring, `${expired.length}/${expiringIds.length}`),
        check('none EXPIRED before its expires_at', early === 0, `${early} early`),
        check(`expired_at − expires_at ≤ ${TARGET_MS / 1000} s (max and p99)`, maxLate <= TARGET_MS && p99 <= TARGET_MS, `p99 ${s(p99)}, max ${s(maxLate)}`),
        check(
          `seen EXPIRED by a ${POLL_MS} ms poll ≤ ${TARGET_MS / 1000} s after expires_at`,
          (visible.at(-1) ?? Infinity) <= TARGET_MS,
          `p99 ${s(quantile(visible, 0.99))}, max ${s(visible.at(-1) ?? Infinity)}`,
        ),
        check(
          'GET /v1/qrs/{id} answers EXPIRED',
          getsExpired.length === gets.length && gets.length > 0,
          `${getsExpired.length}/${gets.length} (${tally(gets.map((e) => `${answerLabel(e.answer)} ${(e.answer.body as { status?: string } | undefined)?.status ?? ''}`.trim()))})`,
        ),
        check('confirmed QRs never EXPIRED', confirmedRows.length === CONFIRMED && confirmedRows.every((r) => r.status !== 'EXPIRED'), tally(confirmedRows.map((r) => r.status))),
        check('QRs expiring later left PENDING', laterRows.length === LATER && laterRows.every((r) => r.status === 'PENDING'), tally(laterRows.map((r) => r.status))),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings:
        `created at ${(created.length / createSeconds).toFixed(0)} QR/s (${createSeconds.toFixed(1)} s; warm-up ${warmRate.toFixed(0)} QR/s), window opened ${s(windowStart - createdAt)} after; ` +
        `expired_at − expires_at p50 ${s(quantile(lateness, 0.5))}, p99 ${s(p99)}, max ${s(maxLate)}; seen by the poll p50 ${s(quantile(visible, 0.5))}, p99 ${s(quantile(visible, 0.99))}, max ${s(visible.at(-1) ?? Infinity)}; ` +
        `expiry queue empty ${s(drainedAfter)} after the window closed`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await services.stop();
  }
}
