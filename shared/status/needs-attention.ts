/**
 * Needs attention (issue #38): what the service stopped retrying by itself, one list for the alarm
 * (`autofactura_needs_attention{kind}`), the status page's panel and the operator's verbs
 * (`npm run cli -- attention list|retry|give-up`). Each kind reads its own rows (the state is the row's:
 * no second record to drift) and says how to retry and how to give up one of them. A new kind is one
 * entry in ATTENTION_KINDS; its runbook entry goes in docs/operations.md.
 */
import type { Db } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';
import { needsAttention } from '../platform/metrics/registry.js';
import { jobId } from '../platform/jobs.js';
import type { Producers } from '../platform/queues.js';
import { enqueueStamp } from '../invoices/enqueue-stamp.js';
import { enqueueInvoiceEmail } from '../invoices/enqueue-follow-ups.js';
import { countUnsentInvoiceEmails, giveUpInvoiceEmail, isUnsentInvoiceEmail, listUnsentInvoiceEmails } from '../repositories/unsent-invoice-emails.js';
import { countFailedExports, giveUpFailedExport, listFailedExports, reopenFailedExport } from '../repositories/invoice-exports.js';
import { requestIssuerSync } from '../issuers/request-issuer-sync.js';
import { countStalledInvoices, giveUpStalledInvoice, listStalledInvoices, unstallInvoice } from '../repositories/stalled-invoices.js';
import { countWithheldStamps, listWithheldStamps } from '../repositories/invoices.js';
import { retryWithheldStamp } from '../invoices/retry-withheld-stamp.js';
import { countCancellationsNeedingAttention, listCancellationsNeedingAttention } from '../repositories/invoice-cancellations.js';
import { heldBackPeriods, type HeldBackPeriod } from '../repositories/global-invoices.js';
import { AUTOMATIC_REPORTS_PER_PERIOD, reportPeriods } from '../global-invoice/report-periods.js';
import { giveUpCancellation, retryCancellation } from '../cancellation/attention-actions.js';
import { countFailedDeliveries, giveUpFailedDelivery, listFailedDeliveries, reopenFailedDelivery } from '../repositories/webhooks.js';
import { config } from '../platform/config.js';
import { heldSaleMonths, youngCfdiOf } from '../repositories/sale-months.js';

/** What an action needs: the record and the queues. */
export interface AttentionDeps {
  db: Db;
  producers: Producers;
}

/** One thing that needs attention. `merchantId` when it is a merchant's; `accountId` when it is an account's as a whole. */
export interface AttentionEntry {
  id: string;
  merchantId?: string | null;
  accountId?: string | null;
  cause: string;
  since: Date;
}

/** What an action did: done (true), nothing to act on (false), or refused for a reason the operator reads. */
export type ActionResult = boolean | { refused: string };

export interface AttentionKind {
  /** The label value of the metric and the word of the CLI (`attention retry <kind> <id>`). */
  kind: string;
  /** What it is, for the page and `attention list`. */
  what: string;
  count(db: Db): Promise<number>;
  /** The oldest first. */
  list(db: Db, limit: number): Promise<AttentionEntry[]>;
  /** Queued again as if new. False when `id` is not (or no longer) one needing attention; `{ refused }`: not now, and why. */
  retry(deps: AttentionDeps, id: string): Promise<ActionResult>;
  /** Final; it leaves the list. False when `id` is not (or no longer) one needing attention; `{ refused }`: not now, and why. */
  giveUp(deps: AttentionDeps, id: string): Promise<ActionResult>;
}

/** A finished job kept under the id a retry must use is removed first (BullMQ ignores an add whose id exists). */
async function requeue(queue: ReturnType<Producers['queueOf']>, id: string, add: () => Promise<unknown>): Promise<void> {
  const kept = await queue.getJob(id);
  const state = kept ? await kept.getState() : undefined;
  if (state === 'failed' || state === 'completed') await kept!.remove();
  await add();
}

const issuersNeedingAttention = (db: Db) => db('issuers').where({ sync_status: 'FAILED' }).whereNotNull('sync_attention_at');

export const ATTENTION_KINDS: readonly AttentionKind[] = [
  {
    kind: 'invoice',
    what: 'CFDIs (sales, credit notes, payment complements, global invoices) not stamped within STAMP_GIVE_UP_MS: no longer re-queued',
    count: countStalledInvoices,
    list: listStalledInvoices,
    async retry({ db, producers }, id) {
      if (!(await unstallInvoice(db, id))) return false;
      await enqueueStamp(producers, id);
      return true;
    },
    // Not while a stamp job of it waits or runs (one queued by hand, or still waiting out a PAC credentials pause):
    // the PAC may stamp it after it was given up, a CFDI nobody would know of.
    async giveUp({ db, producers }, id) {
      const job = await producers.queueOf('stamp-invoice', { invoiceId: id }).getJob(jobId.stampInvoice(id));
      const state = job ? await job.getState() : undefined;
      if (state !== undefined && state !== 'failed' && state !== 'completed' && state !== 'unknown')
        return { refused: `its stamp job is ${state}: let it end (it may stamp), then give up if it is still listed` };
      return giveUpStalledInvoice(db, id);
    },
  },
  {
    kind: 'withheld-stamp',
    what: 'invoices the PAC says it stamped but whose CFDI it withheld through every attempt (SW 307 / CFDI3307 without the XML): the CFDI exists at SAT',
    count: countWithheldStamps,
    list: async (db, limit) => (await listWithheldStamps(db, limit)).map((r) => ({ ...r, cause: 'the PAC stamped it and withheld the CFDI (307 / CFDI3307 without data)' })),
    // Re-sent under the same customid once SW serves the stamp: it records that CFDI.
    retry: async ({ db, producers }, id) => (await retryWithheldStamp(db, producers, id)) === 'queued',
    // Never: the CFDI exists at SAT; giving the invoice up would free its folio and leave that CFDI unknown here.
    giveUp: () => Promise.resolve({ refused: 'its CFDI exists at SAT: retry once the PAC serves it (Runbook: StampWithheld), never give it up' }),
  },
  {
    kind: 'cancellation',
    what: 'cancellations the PAC acknowledged whose outcome SAT does not give (NEEDS_ATTENTION)',
    count: countCancellationsNeedingAttention,
    list: listCancellationsNeedingAttention,
    retry: async ({ db }, id) => (await retryCancellation(db, id)) !== undefined,
    giveUp: async ({ db }, id) => (await giveUpCancellation(db, id)) !== undefined,
  },
  {
    kind: 'global-period',
    what: `merchant periods whose global invoice was refused ${AUTOMATIC_REPORTS_PER_PERIOD} times: their unclaimed sales wait to be reported, no longer by the scheduled job`,
    count: async (db) => (await heldBackPeriods(db, AUTOMATIC_REPORTS_PER_PERIOD, Number.MAX_SAFE_INTEGER)).length,
    list: async (db, limit) => (await heldBackPeriods(db, AUTOMATIC_REPORTS_PER_PERIOD, limit)).map(periodEntry),
    // Reported once more, as the merchant's manual trigger does: once the refusal's cause is put right.
    async retry({ db, producers }, id) {
      const period = (await heldBackPeriods(db, AUTOMATIC_REPORTS_PER_PERIOD, Number.MAX_SAFE_INTEGER)).find((p) => periodId(p) === id);
      if (!period) return false;
      await reportPeriods(db, producers, [period]);
      return true;
    },
    // Never: a period's sales must be reported to SAT; the cause is put right and the period retried.
    giveUp: () => Promise.resolve({ refused: "a period's sales must be reported: put the refusal's cause right and retry it" }),
  },
  {
    kind: 'invoice-email',
    what: "stamped invoices whose buyer's e-mail failed every attempt and is past the follow-up sweep's day",
    count: (db) => countUnsentInvoiceEmails(db),
    list: (db, limit) => listUnsentInvoiceEmails(db, limit),
    // Queued again; it stays listed until the e-mail is sent (or refused by the mail server).
    async retry({ db, producers }, id) {
      if (!(await isUnsentInvoiceEmail(db, id))) return false;
      await requeue(producers.queueOf('email-invoice', { invoiceId: id }), jobId.emailInvoice(id), () => enqueueInvoiceEmail(producers, id));
      return true;
    },
    giveUp: ({ db }, id) => giveUpInvoiceEmail(db, id),
  },
  {
    kind: 'csf-sync',
    what: "issuers' CSF synchronizations FAILED because SAT's CSF service did not answer through every attempt, or their job was lost",
    async count(db) {
      const row = (await issuersNeedingAttention(db).count({ n: '*' }).first()) as { n: string | number } | undefined;
      return Number(row?.n ?? 0);
    },
    async list(db, limit) {
      const rows = (await issuersNeedingAttention(db).orderBy('sync_attention_at').limit(limit).select('id', 'account_id', 'sync_error', 'sync_attention_at')) as {
        id: string;
        account_id: string;
        sync_error: string | null;
        sync_attention_at: Date;
      }[];
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, cause: r.sync_error ?? '', since: r.sync_attention_at }));
    },
    async retry({ db, producers }, id) {
      if ((await issuersNeedingAttention(db).where({ id }).first('id')) === undefined) return false;
      // As the owner's POST …/synchronize: a new synchronization, or the one already waiting joined.
      await requestIssuerSync(db, producers, id);
      return true;
    },
    async giveUp({ db }, id) {
      return (await issuersNeedingAttention(db).where({ id }).update({ sync_attention_at: null })) === 1;
    },
  },
  {
    kind: 'export',
    what: 'ZIP exports of CFDIs FAILED after their attempts (or their job ended without a result)',
    count: (db) => countFailedExports(db),
    list: (db, limit) => listFailedExports(db, limit),
    async retry({ db, producers }, id) {
      if (!(await reopenFailedExport(db, id))) return false;
      await requeue(producers.queueOf('build-invoice-export', { exportId: id }), jobId.buildInvoiceExport(id), () => producers.add('build-invoice-export', { exportId: id }));
      return true;
    },
    giveUp: ({ db }, id) => giveUpFailedExport(db, id),
  },
  {
    kind: 'webhook-delivery',
    what: 'webhook deliveries FAILED after WEBHOOK_ATTEMPTS attempts, or whose retries were interrupted',
    count: countFailedDeliveries,
    list: listFailedDeliveries,
    async retry({ db, producers }, id) {
      if (!(await reopenFailedDelivery(db, id))) return false;
      await requeue(producers.queueOf('deliver-webhook', { deliveryId: id }), jobId.deliverWebhook(id), () => producers.add('deliver-webhook', { deliveryId: id }));
      return true;
    },
    giveUp: ({ db }, id) => giveUpFailedDelivery(db, id),
  },
  {
    kind: 'sale-month',
    what: 'months of QR sales past QR_RETENTION_MONTHS the keep-partitions job kept, a CFDI built from them being inside its five years (or not stamped yet): it drops each once none is',
    count: async (db) => (await heldSaleMonths(db, config().qrRetentionMonths, new Date())).length,
    async list(db, limit) {
      const held = (await heldSaleMonths(db, config().qrRetentionMonths, new Date())).slice(0, limit);
      return Promise.all(
        held.map(async (m) => {
          const cfdi = await youngCfdiOf(db, m.range, new Date());
          return { id: m.range.name, cause: cfdi ? `CFDI ${cfdi} of these sales is inside its five years` : 'no CFDI holds it now: the next run drops it', since: m.since };
        }),
      );
    },
    // Nothing to do by hand: the hourly run drops the month once no CFDI holds it.
    async retry({ db }, id) {
      const month = (await heldSaleMonths(db, config().qrRetentionMonths, new Date())).find((m) => m.range.name === id);
      return month ? { refused: 'a CFDI of these sales is inside its five years; the month leaves on its own once none is' } : false;
    },
    giveUp: () => Promise.resolve({ refused: 'a CFDI inside its five years is kept with the sales it was built from (CFF art. 30)' }),
  },
];

/** A held-back period's id for the CLI: its merchant and the instant it closed. */
const periodId = (p: HeldBackPeriod) => `${p.merchant_id}@${p.global_period_end.toISOString()}`;

function periodEntry(p: HeldBackPeriod): AttentionEntry {
  const r = p.last_refusal;
  const refusal = r ? `${r.details?.[0]?.pac_code ?? r.code ?? ''}: ${r.message ?? ''}` : 'refused';
  return { id: periodId(p), merchantId: p.merchant_id, cause: `global invoice refused ${p.refused} times; the last: ${refusal}`, since: p.last_refused_at };
}

export function attentionKind(kind: string): AttentionKind | undefined {
  return ATTENTION_KINDS.find((k) => k.kind === kind);
}

export interface AttentionSummary {
  kind: string;
  what: string;
  count: number;
  /** The oldest `limit` of them. */
  items: AttentionEntry[];
}

/** Every kind's count and its oldest items. */
export async function readNeedsAttention(db: Db, limit: number): Promise<AttentionSummary[]> {
  return Promise.all(ATTENTION_KINDS.map(async (k) => ({ kind: k.kind, what: k.what, count: await k.count(db), items: limit > 0 ? await k.list(db, limit) : [] })));
}

/** Sets the gauge per kind from PostgreSQL (at scrape, as the queue gauges are). On failure it is emptied rather than left stale, and the error passed on. */
export async function recordNeedsAttention(db: Db): Promise<void> {
  try {
    const counts = await Promise.all(ATTENTION_KINDS.map(async (k) => [k.kind, await k.count(db)] as const));
    for (const [kind, n] of counts) needsAttention.set({ kind }, n);
  } catch (err) {
    needsAttention.reset();
    throw err;
  }
}

export type AttentionAction = 'retry' | 'give-up';
export type AttentionOutcome = 'done' | 'not-needing-attention' | 'refused' | 'unknown-kind';

/**
 * An operator's action on one item, audited: one log line (`audit: "needs-attention"`) with who, what and
 * the outcome, whether it was done or refused.
 */
export async function actOnAttention(
  deps: AttentionDeps,
  log: Pick<Logger, 'info' | 'warn'>,
  request: { action: AttentionAction; kind: string; id: string; operator: string },
): Promise<{ outcome: AttentionOutcome; reason?: string }> {
  const kind = attentionKind(request.kind);
  const result = kind ? await (request.action === 'retry' ? kind.retry(deps, request.id) : kind.giveUp(deps, request.id)) : undefined;
  const outcome: AttentionOutcome = result === undefined ? 'unknown-kind' : result === true ? 'done' : result === false ? 'not-needing-attention' : 'refused';
  const reason = typeof result === 'object' ? result.refused : undefined;
  (outcome === 'done' ? log.info.bind(log) : log.warn.bind(log))(
    { audit: 'needs-attention', ...request, outcome, ...(reason ? { reason } : {}) },
    `operator ${request.action}: ${outcome}`,
  );
  return reason ? { outcome, reason } : { outcome };
}
