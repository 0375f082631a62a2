import { QueueEvents, type Job } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId, type InvoicesPayload, type StampInvoicesResult } from '../../shared/platform/jobs.js';
import type { Customer } from '../../shared/invoices/customer.js';
import { harness } from './harness.js';
import { call } from './http.js';
import { postQr, qrBody } from './qr-body.js';

/** A buyer SAT's fake PAC knows: name, zip and regime as registered. */
export const BUYER: Customer = {
  rfc: 'URE180429TM6',
  name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
  tax_regime: '601',
  postal_code: '86991',
  cfdi_use: 'G03',
  email: 'compras@example.test',
};

export interface QrLink {
  v: string;
  t: string;
  m: string;
  qrId: string;
}

/** A new QR for the sample sale, as the three link parameters the buyer's phone reads. */
export async function newQrLink(account: BootstrapResult, overrides: Parameters<typeof qrBody>[1] = {}): Promise<QrLink> {
  const res = await postQr(account, qrBody(account.storeUid, overrides));
  if (res.status !== 201) throw new Error(`QR not created: ${res.status} ${JSON.stringify(res.body)}`);
  const url = new URL(res.body.qr_content as string);
  return { v: url.searchParams.get('v')!, t: url.searchParams.get('t')!, m: url.searchParams.get('m')!, qrId: res.body.qr_id as string };
}

export function linkQuery(link: QrLink): string {
  return new URLSearchParams({ v: link.v, t: link.t, m: link.m }).toString();
}

/** The buyer's request of a preview and of its confirmation (without the digest). */
function buyerRequest(link: QrLink, customer: Partial<Customer>, extra: { additional_tickets?: string[] }) {
  return { v: link.v, t: link.t, m: link.m, customer: { ...BUYER, ...customer }, ...extra };
}

/** POST /v1/public/qrs/preview: what confirm would stamp, and its `review_digest`. */
export function preview(link: QrLink, customer: Partial<Customer> = {}, extra: { additional_tickets?: string[] } = {}) {
  return call('POST', '/v1/public/qrs/preview', { body: buyerRequest(link, customer, extra) });
}

/**
 * Confirms as the page does: previews, then confirms with the preview's `review_digest`. When the preview is
 * refused, confirm goes with a placeholder digest: it is refused for the same reason (its checks come first).
 */
export async function confirmReviewed(link: QrLink, customer: Partial<Customer> = {}, extra: { additional_tickets?: string[] } = {}) {
  const reviewed = await preview(link, customer, extra);
  const digest = reviewed.status === 200 ? (reviewed.body.review_digest as string) : 'not-reviewed';
  return call('POST', '/v1/public/qrs/confirm', { body: { ...buyerRequest(link, customer, extra), review_digest: digest } });
}

/**
 * The latest stamp job of `invoiceId`: its own (queued by the sweep, by hand, or by its batch when the PAC did
 * not answer), else the batch it leads, else a batch listing it (a confirmation gathered with others: issue
 * #40). Undefined when none exists.
 */
async function stampJobOf(invoiceId: string): Promise<Job | undefined> {
  const q = harness().producers.queue('stamp');
  const own = (await q.getJob(jobId.stampInvoice(invoiceId))) ?? (await q.getJob(jobId.stampInvoices(invoiceId)));
  if (own) return own;
  return (await q.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'completed'])).find(
    (job) => job.name === 'stamp-invoices' && (job.data as InvoicesPayload).invoiceIds.includes(invoiceId),
  );
}

/**
 * Waits for the stamp of the transaction's latest confirmation to finish (its jobs are kept for an hour) and
 * answers its outcome: its batch's outcome for it, or, when the batch handed it on to its own stamp-invoice job
 * (the PAC did not answer), that job's.
 */
export async function stamped(events: QueueEvents, qrId: string): Promise<unknown> {
  const invoice = await harness().deps.db('invoices').where({ transaction_id: qrId }).orderBy('created_at', 'desc').first('id');
  if (!invoice) throw new Error(`no confirmation for ${qrId}`);
  const id = invoice.id as string;
  const job = await stampJobOf(id);
  if (!job) throw new Error(`no stamp job for ${id}`);
  // The job's own outcome ends the wait; this only bounds it: every attempt timing out, plus some.
  const { pacAttempts, pacTimeoutMs } = harness().deps.config;
  const bound = pacAttempts * pacTimeoutMs + 10_000;
  const result = (await job.waitUntilFinished(events, bound)) as unknown;
  if (job.name !== 'stamp-invoices') return result;
  const own = (result as StampInvoicesResult).invoices.find((o) => o.invoiceId === id);
  if (own?.outcome !== 'retrying') return own;
  const single = await harness().producers.queue('stamp').getJob(jobId.stampInvoice(id));
  if (!single) throw new Error(`stamp batch ${job.id} handed ${id} on, and it has no job`);
  return single.waitUntilFinished(events, bound);
}

/**
 * Waits for the buyer's e-mail of an invoice stamped (after stamped()): its stamp batch sent it itself (issue #40),
 * unless the mail server refused for now, or the invoice was stamped alone: then its own e-mail job.
 */
export async function emailed(events: QueueEvents, invoiceId: string): Promise<void> {
  const job = await harness().producers.queue('email').getJob(jobId.emailInvoice(invoiceId));
  await job?.waitUntilFinished(events, 60_000);
}

export async function queueEvents(queue: string): Promise<QueueEvents> {
  const cfg = harness().deps.config;
  const events = new QueueEvents(queue, { connection: { url: cfg.redisUrl }, prefix: cfg.queuePrefix });
  await events.waitUntilReady();
  return events;
}

/** QueueEvents for several queues at once, and one close for all of them. */
export async function queueEventsOf<Q extends string>(...queues: Q[]): Promise<{ events: Record<Q, QueueEvents>; close(): Promise<void> }> {
  const list = await Promise.all(queues.map((q) => queueEvents(q)));
  return {
    events: Object.fromEntries(queues.map((q, i) => [q, list[i]!])) as Record<Q, QueueEvents>,
    close: async () => void (await Promise.all(list.map((e) => e.close()))),
  };
}
