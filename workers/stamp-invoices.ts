/**
 * stamp-invoices (issue #40): the confirmations one API process accepted within a few milliseconds
 * (shared/invoices/stamp-batcher.ts), stamped together. One statement reads the invoices, one their sales, one
 * saves every new sealed document; then each document goes to the PAC at once, and each answer is recorded in
 * its own all-or-nothing statement, as the single job records it (workers/stamp-invoice.ts: the same steps). A
 * worker that dies mid-batch leaves the unrecorded ones STAMPING with their sealed documents saved: the batch
 * runs again (BullMQ's stalled check) or the sweep queues each one, and each re-sends its same bytes under its
 * own customid, so the PAC answers the stamp it made, never a second CFDI.
 *
 * One invoice's trouble is its own: a refusal is recorded for it alone; an invoice the PAC does not answer
 * (timeout, 5xx, SW's own failure, a withheld stamp) goes on to a `stamp-invoice` job of its own with the
 * attempts left, the others are recorded and e-mailed. Refused credentials refuse every call: once the others
 * are done the batch waits again with its queue paused (workers/pause-on-pac.ts), and its next run
 * skips what is recorded. Then the buyers' mails of what this run recorded go out from here
 * (workers/email-invoice.ts, mailStampedInvoices): no job of their own unless the mail server refuses for now.
 */
import type { Job } from 'bullmq';
import { PacCredentialsRejected } from '../shared/adapters/pac/pac-client.js';
import { jobId, type InvoicesPayload, type StampInvoicesResult } from '../shared/platform/jobs.js';
import type { Producers } from '../shared/platform/queues.js';
import { findInvoicesToStamp, saveSealedDocuments, type InvoiceToStamp } from '../shared/repositories/invoices.js';
import { enqueueBuyerEmail } from '../shared/invoices/enqueue-follow-ups.js';
import { documentSource, outcomeWithoutStamp, salesOf, sealDocument, sendAndRecord, type DocumentSource, type StampDeps } from './stamp-invoice.js';
import { mailStampedInvoices, type EmailDeps } from './email-invoice.js';

export interface StampBatchDeps extends StampDeps, EmailDeps {
  /** PAC_ATTEMPTS and PAC_BACKOFF_MS: the batch's call is an invoice's first attempt, its own job has the rest. */
  pacAttempts: number;
  pacBackoffMs: number;
}

type InvoiceOutcome = StampInvoicesResult['invoices'][number];

/** An invoice ready to send: its row, what its document is built from, and the sealed document. */
interface Ready {
  toStamp: InvoiceToStamp;
  source: DocumentSource;
  document: string;
}

export async function stampInvoicesJob(deps: StampBatchDeps, job: Job<InvoicesPayload>, now: () => Date = () => new Date()): Promise<StampInvoicesResult> {
  const ids = [...new Set(job.data.invoiceIds)];
  const found = await findInvoicesToStamp(deps.db, ids);
  const outcomes = new Map<string, InvoiceOutcome>();
  const toStamp: InvoiceToStamp[] = [];
  // A run after a pause (refused credentials) or a stall: the sweep may have queued some of its invoices on
  // their own meanwhile; one whose own job waits or runs is left to it, so it is not sent twice at once.
  const rerun = (job.attemptsStarted ?? 0) > 1;
  for (const invoiceId of ids) {
    const row = found.get(invoiceId);
    const settled = row ? outcomeWithoutStamp(row.invoice) : undefined;
    if (!row) outcomes.set(invoiceId, { invoiceId, outcome: 'not-found' });
    else if (settled) {
      outcomes.set(invoiceId, { invoiceId, ...settled });
      // Recorded by an earlier run of this batch (its worker died before the mails) or another job: queued once.
      if (settled.outcome === 'already-stamped') await enqueueBuyerEmail(deps.producers, row.invoice);
    } else if (rerun && (await ownJobLives(deps.producers, invoiceId))) outcomes.set(invoiceId, { invoiceId, outcome: 'retrying', qrId: row.invoice.transaction_id });
    else toStamp.push(row);
  }

  // Seal what needs a new document (one read for every sale), then save them all in one statement before any is sent.
  const sales = await salesOf(deps, toStamp);
  const ready: Ready[] = [];
  const newDocuments: { invoiceId: string; sealedXml: string; issuedLocal: string }[] = [];
  for (const row of toStamp) {
    const { id, transaction_id: qrId } = row.invoice;
    try {
      const source = documentSource(deps, row, sales);
      const sealed = await sealDocument(deps, row, source, now);
      if (sealed.kind === 'refused') {
        outcomes.set(id, { invoiceId: id, outcome: 'refused', qrId, code: 'service' });
        continue;
      }
      if (sealed.kind === 'sealed') newDocuments.push({ invoiceId: id, sealedXml: sealed.xml, issuedLocal: sealed.issuedLocal });
      ready.push({ toStamp: row, source, document: sealed.xml });
    } catch {
      // Its sale gone, its merchant without a CSD: its own job says so (and fails) without holding the others.
      outcomes.set(id, await handOff(deps, row));
    }
  }
  await saveSealedDocuments(deps.db, newDocuments);

  // Every document to the PAC at once; each answer recorded by itself as it comes.
  const lastAttempt = deps.pacAttempts <= 1;
  const refused: { credentials?: PacCredentialsRejected } = {};
  const recorded: InvoiceToStamp[] = [];
  const sends = await Promise.allSettled(
    ready.map(async ({ toStamp: row, source, document }) => {
      const { id } = row.invoice;
      try {
        const sent = await sendAndRecord(deps, row, source, document, lastAttempt, now);
        outcomes.set(id, { invoiceId: id, ...sent.result });
        if (sent.recorded) recorded.push(row);
      } catch (err) {
        if (err instanceof PacCredentialsRejected) {
          refused.credentials = err;
          outcomes.set(id, { invoiceId: id, outcome: 'retrying', qrId: row.invoice.transaction_id });
        } else outcomes.set(id, await handOff(deps, row));
      }
    }),
  );
  // A hand-off the queue did not take (Redis away): the batch fails, after the mails of what it recorded; the sweeps take over.
  const mails = await mailStampedInvoices(
    deps,
    recorded.map((row) => row.invoice.id),
  );
  const lost = sends.find((r) => r.status === 'rejected');
  if (lost) throw lost.reason;
  if (refused.credentials) throw refused.credentials;
  return { invoices: ids.map((invoiceId) => ({ ...outcomes.get(invoiceId)!, ...(mails.has(invoiceId) ? { email: mails.get(invoiceId) } : {}) })) };
}

/** Whether the invoice's own stamp-invoice job is waiting or running (one command; only on a batch's re-run). */
async function ownJobLives(producers: Producers, invoiceId: string): Promise<boolean> {
  const state = await producers.queueOf('stamp-invoice', { invoiceId }).getJobState(jobId.stampInvoice(invoiceId));
  return state !== 'completed' && state !== 'failed' && state !== 'unknown';
}

/**
 * An invoice the PAC did not answer: its own stamp-invoice job, with the attempts and backoff it would have had
 * as a job of its own (this call was its first). With none left, the sweep takes it up, as after a job's last.
 */
async function handOff(deps: StampBatchDeps, row: InvoiceToStamp): Promise<InvoiceOutcome> {
  const { id: invoiceId, transaction_id: qrId } = row.invoice;
  if (deps.pacAttempts > 1) await deps.producers.add('stamp-invoice', { invoiceId }, { attempts: deps.pacAttempts - 1, delay: deps.pacBackoffMs });
  return { invoiceId, outcome: 'retrying', qrId };
}
