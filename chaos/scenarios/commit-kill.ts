import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { confirmQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext, type Services } from '../chaos-context.js';
import { History } from '../history.js';
import type { Answer } from '../http-call.js';
import { answerLabel, tally } from '../http-call.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface CommitKillOptions {
  /** SIGKILLs right after a commit, API and worker together, before the sales stop. */
  crashes: number;
  /** The chance of a kill at each commit point (CRASH_AFTER_COMMIT). */
  probability?: number;
  /** Clients selling and confirming at once. */
  clients?: number;
}

const POINTS = ['qr-created', 'qr-confirmed', 'invoice-stamped'] as const;
const SWEEP_MS = 2000;

/**
 * kill -9 between commit and enqueue: API and worker run with CRASH_AFTER_COMMIT, so they die by SIGKILL
 * right after a QR is recorded, a confirmation accepted or a stamp recorded, before the
 * job that follows is queued. Each dead process is started again at once; clients retry every request
 * (same Idempotency-Key, same body, same customer) until answered. One sale in four is left unconfirmed
 * with a short expiry. Afterwards no committed change is without its consequence: every confirmed QR is
 * INVOICED once and its e-mail sent (the e-mail job renders the PDF it attaches: none goes without), every
 * unconfirmed one EXPIRED; the sweeps did it.
 */
export async function commitKill(ctx: ChaosContext, options: CommitKillOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const name = `commitkill${options.crashes}`;
  const services = await startServices(ctx, name, {
    CRASH_AFTER_COMMIT: String(options.probability ?? 0.04),
    STAMP_SWEEP_MS: String(SWEEP_MS),
    EXPIRY_SWEEP_MS: String(SWEEP_MS),
  });
  const history = new History();
  const confirmed: string[] = [];
  const unconfirmed: { qrId: string; expiresAt: number }[] = [];
  const keys: string[] = [];
  let selling = true;
  const giveUpAt = Date.now() + 20 * 60_000;
  const restarts = { api: 0, worker: 0 };
  let supervised = true;
  // The supervisor (systemd, Kubernetes) of this run: whatever died is started again, until the checks.
  const supervising = supervise(services, restarts, () => supervised);

  /** Asks until the answer is not an outage (no answer, 5xx). */
  const untilAnswered = async (op: string, key: string, call: () => Promise<Answer>): Promise<Answer> => {
    for (;;) {
      const answer = await history.record(op, key, call);
      if ((answer.status !== 0 && answer.status < 500) || Date.now() > giveUpAt) return answer;
      await sleep(100);
    }
  };
  const client = async (n: number) => {
    for (let sale = 0; selling; sale++) {
      const key = randomUUID();
      keys.push(key);
      const leaveOpen = (n + sale) % 4 === 0;
      const expiresAt = leaveOpen ? new Date(Date.now() + 20_000) : undefined;
      const body = saleBody(ctx, expiresAt);
      const created = await untilAnswered('create', key, () => postQr(ctx, services.baseUrl, body, key, 20_000));
      if (created.status !== 201) continue;
      const qr = created.body as { qr_id: string; qr_content: string };
      if (leaveOpen) {
        unconfirmed.push({ qrId: qr.qr_id, expiresAt: expiresAt!.getTime() });
        continue;
      }
      const answer = await untilAnswered('confirm', qr.qr_id, () => confirmQr(services.baseUrl, qr.qr_content));
      // A retry of a confirmation the kill cut: the same 202, or, once stamped, 409 qr_already_invoiced.
      if (answer.status === 202 || errorCode(answer) === 'qr_already_invoiced') confirmed.push(qr.qr_id);
    }
  };
  const clients = Array.from({ length: options.clients ?? 6 }, (_, n) => client(n));
  try {
    await waitFor(async () => (await crashesByPoint(ctx, name)).total >= options.crashes || Date.now() > giveUpAt, 30 * 60_000);
    selling = false;
    await Promise.all(clients);
    // The faults end (a fixed build is deployed): what they left undone is for the sweeps alone.
    supervised = false;
    await supervising;
    services.env.CRASH_AFTER_COMMIT = '0';
    await Promise.all([services.api.stop(), services.worker.stop()]);
    await Promise.all([services.api.start(), services.worker.start()]);
    const crashesBefore = services.crashes().length;

    const db = ctx.db;
    const done = async () => {
      const [invoiced] = (await db('invoices').whereIn('transaction_id', confirmed).where({ status: 'ACTIVE' }).whereNotNull('email_sent_at').count({ n: '*' })) as { n: string }[];
      const [expired] = (await db('qr_transactions')
        .whereIn(
          'id',
          unconfirmed.map((u) => u.qrId),
        )
        .where({ status: 'EXPIRED' })
        .count({ n: '*' })) as { n: string }[];
      return Number(invoiced!.n) === confirmed.length && Number(expired!.n) === unconfirmed.length;
    };
    const settled = await waitFor(done, 180_000);

    const crashes = await crashesByPoint(ctx, name);
    const invoices = (await db('invoices').whereIn('transaction_id', confirmed).select('transaction_id', 'status', 'uuid', 'folio', 'email_sent_at')) as {
      transaction_id: string;
      status: string;
      uuid: string | null;
      folio: string;
      email_sent_at: Date | null;
    }[];
    const live = invoices.filter((i) => i.status !== 'REFUSED');
    const qrs = (await db('qr_transactions').whereIn('idempotency_key', keys).where({ merchant_id: ctx.account.merchantId }).select('id', 'idempotency_key', 'status')) as {
      id: string;
      idempotency_key: string;
      status: string;
    }[];
    const statusOf = new Map(qrs.map((q) => [q.id, q.status]));
    const creates = history.of('create');
    const confirms = history.of('confirm');
    const answeredKeys = new Set(creates.filter((e) => e.answer.status === 201).map((e) => e.key));
    const perKey = new Map<string, number>();
    for (const q of qrs) perKey.set(q.idempotency_key, (perKey.get(q.idempotency_key) ?? 0) + 1);
    const unanswered = [...history.events].filter((e) => e.answer.status === 0 || e.answer.status >= 500);
    const lastAnswers = new Map<string, number>();
    for (const e of history.events) lastAnswers.set(`${e.op} ${e.key}`, e.answer.status);
    const expiredLate = unconfirmed.filter((u) => statusOf.get(u.qrId) !== 'EXPIRED');
    const pointsHit = POINTS.filter((p) => crashes.byPoint[p] > 0);

    return {
      scenario: `kill -9 between commit and enqueue ×${crashes.total}`,
      counts:
        `${crashes.total} kills after a commit (${POINTS.map((p) => `${p} ${crashes.byPoint[p]}`).join(', ')}); ${restarts.api} API and ${restarts.worker} worker restarts; ` +
        `${keys.length} sales (${confirmed.length} confirmed, ${unconfirmed.length} left to expire); ${creates.length} creates (${tally(creates.map((e) => answerLabel(e.answer)))}), ` +
        `${confirms.length} confirms (${tally(confirms.map((e) => answerLabel(e.answer)))}); ${unanswered.length} requests cut by a kill, each retried`,
      checks: [
        check(
          `≥ ${options.crashes} kills after a commit, at every point`,
          crashes.total >= options.crashes && pointsHit.length === POINTS.length,
          `${crashes.total}, points ${pointsHit.join(', ')}`,
        ),
        check(
          'every request answered in the end (no 5xx but while a process was down)',
          [...lastAnswers.values()].every((s) => s !== 0 && s < 500),
        ),
        check(
          'every confirmation retried with the same data answered as the first',
          confirms.every((e) => e.answer.status !== 409 || errorCode(e.answer) === 'qr_already_invoiced'),
          tally(confirms.filter((e) => e.answer.status === 409).map((e) => answerLabel(e.answer))),
        ),
        check(
          'every key answered 201, one transaction per key',
          keys.every((k) => answeredKeys.has(k) && perKey.get(k) === 1),
          `${answeredKeys.size}/${keys.length} keys, ${qrs.length} rows`,
        ),
        check(
          'every confirmed QR INVOICED',
          confirmed.every((id) => statusOf.get(id) === 'INVOICED'),
          `${confirmed.filter((id) => statusOf.get(id) === 'INVOICED').length}/${confirmed.length}`,
        ),
        check(
          'one ACTIVE invoice per confirmed QR, one UUID and one folio each',
          live.length === confirmed.length &&
            live.every((i) => i.status === 'ACTIVE') &&
            new Set(live.map((i) => i.transaction_id)).size === live.length &&
            new Set(live.map((i) => i.uuid)).size === live.length &&
            new Set(live.map((i) => i.folio)).size === live.length,
          `${live.length} live invoices for ${confirmed.length} QRs`,
        ),
        check(
          'every invoice e-mailed (with the PDF its e-mail job rendered)',
          live.every((i) => i.email_sent_at),
          `${live.filter((i) => !i.email_sent_at).length} without e-mail`,
        ),
        check('every unconfirmed QR EXPIRED', expiredLate.length === 0, `${unconfirmed.length - expiredLate.length}/${unconfirmed.length}`),
        check('no process crashed once the faults ended', services.crashes().length === crashesBefore, services.crashes().slice(crashesBefore).join('; ')),
      ],
      timings:
        settled === undefined
          ? 'not settled within 180 s of the restart without faults'
          : `settled ${(settled / 1000).toFixed(1)} s after the restart without faults (sweeps every ${SWEEP_MS / 1000} s; BullMQ's stall check every 30 s)`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    selling = false;
    supervised = false;
    await Promise.allSettled([...clients, supervising]);
    await history.save(join(ctx.workDir, 'commit-kill-history.jsonl')).catch(() => undefined);
    await services.stop();
  }
}

async function supervise(services: Services, restarts: { api: number; worker: number }, running: () => boolean): Promise<void> {
  while (running()) {
    if (!services.api.alive()) {
      await services.api.start().catch(() => undefined);
      restarts.api++;
    }
    if (!services.worker.alive()) {
      await services.worker.start().catch(() => undefined);
      restarts.worker++;
    }
    await sleep(50);
  }
}

/** The kills, from the line each process writes to stderr (its log) just before it dies. */
async function crashesByPoint(ctx: ChaosContext, name: string): Promise<{ total: number; byPoint: Record<(typeof POINTS)[number], number> }> {
  const byPoint = Object.fromEntries(POINTS.map((p) => [p, 0])) as Record<(typeof POINTS)[number], number>;
  for (const role of ['api', 'worker']) {
    const text = await readFile(join(ctx.workDir, `${name}-${role}.log`), 'utf8').catch(() => '');
    for (const match of text.matchAll(/^crash-after-commit (\S+)$/gm)) {
      const point = match[1] as (typeof POINTS)[number];
      if (point in byPoint) byPoint[point]++;
    }
  }
  return { total: Object.values(byPoint).reduce((a, b) => a + b, 0), byPoint };
}

function errorCode(answer: Answer): string | undefined {
  return (answer.body as { error?: { code?: string } } | undefined)?.error?.code;
}
