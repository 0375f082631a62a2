/**
 * email-invoice: the XML and the PDF to the buyer's e-mail (or, on request, another address), queued by the
 * stamp (a stamp batch sends its invoices' mails itself, mailStampedInvoices below, and queues this job for a
 * mail the server refused for now). The buyer's mail goes once: a job finding it sent or refused does nothing. The PDF is the one kept if a download made one (or an invoice from before PDFs were made on demand),
 * else rendered here from the stored XML for this mail alone: a mail never goes without it. A server
 * that refuses for now is retried with backoff; a permanent refusal ends the job. Either way the
 * invoice itself is untouched: it is valid whether or not the mail arrives.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from '../shared/platform/db.js';
import { parseXml } from '../shared/domain/cfdi/parse-xml.js';
import { attribute, descendants } from '../shared/domain/cfdi/xml-element.js';
import { invoiceMail, type CfdiKind } from '../shared/adapters/email/invoice-mail.js';
import { MailRejected, type Mailer } from '../shared/adapters/email/invoice-mailer.js';
import { EMAILED_LINK_SECONDS, invoiceFileUrl } from '../shared/invoices/invoice-links.js';
import type { BatchMailOutcome, InvoicePayload } from '../shared/platform/jobs.js';
import { formatAmount } from '../shared/domain/money.js';
import {
  findInvoicesWithStore,
  findInvoiceWithStore,
  markEmailRefused,
  markEmailSent,
  markEmailsSent,
  type InvoiceRow,
  type InvoiceWithStore,
} from '../shared/repositories/invoices.js';
import { enqueueInvoiceEmail } from '../shared/invoices/enqueue-follow-ups.js';
import type { Producers } from '../shared/platform/queues.js';
import { stampedFacts } from '../shared/cancellation/stamped-facts.js';
import { renderStampedInvoicePdf, type PdfRendering } from '../shared/invoices/stamped-invoice-pdf.js';

export interface EmailDeps extends PdfRendering {
  db: Db;
  mailer: Mailer;
  urlSigningKey: string;
}

export async function emailInvoiceJob(
  deps: EmailDeps,
  job: Job<InvoicePayload & { to?: string }>,
): Promise<{ messageId: string; qrId: string | null; uuid: string; recipient: 'buyer' | 'requested' } | { outcome: 'already-sent'; qrId: string | null }> {
  const found = await findInvoiceWithStore(deps.db, job.data.invoiceId);
  const invoice = found?.invoice;
  if (!found || !invoice?.uuid || !invoice.xml_file_key) throw new UnrecoverableError(`invoice ${job.data.invoiceId} is not stamped`);
  // The buyer's mail goes once: its stamp batch (mailStampedInvoices) or an earlier job sent it.
  if (!job.data.to && (invoice.email_sent_at || invoice.email_refused_at)) return { outcome: 'already-sent', qrId: invoice.transaction_id };
  try {
    const sent = await sendInvoiceMail(deps, found, job.data.to);
    if (!job.data.to) await markEmailSent(deps.db, invoice.id);
    return { ...sent, qrId: invoice.transaction_id, uuid: invoice.uuid, recipient: job.data.to ? 'requested' : 'buyer' };
  } catch (err) {
    if (err instanceof MailRejected) {
      if (!job.data.to) await markEmailRefused(deps.db, invoice.id);
      throw new UnrecoverableError(`the mail server refused the recipient of invoice ${invoice.id}`);
    }
    throw err;
  }
}

/**
 * The stamped invoice's mail, with its XML and PDF, to `to` or else the buyer's address; throws what the mailer
 * throws (MailRejected: refused for good). Records nothing: the caller marks it sent or refused.
 */
export async function sendInvoiceMail(deps: EmailDeps, { invoice, store }: InvoiceWithStore, to?: string): Promise<{ messageId: string }> {
  if (!invoice.uuid || !invoice.xml_file_key) throw new UnrecoverableError(`invoice ${invoice.id} is not stamped`);
  const [xml, kept] = await Promise.all([deps.files.get(invoice.xml_file_key), invoice.pdf_file_key ? deps.files.get(invoice.pdf_file_key) : undefined]);
  if (!xml) throw new UnrecoverableError(`the XML of invoice ${invoice.id} is missing from storage`);
  const pdf = kept?.data ?? (await renderStampedInvoicePdf(deps, xml.data, store.invoiceLogoUrl));
  // The stamped XML says who issued it and in what currency, for every kind of CFDI.
  const text = xml.data.toString('utf8');
  const facts = stampedFacts(text);
  const amount = invoice.cfdi_type === 'P' ? paymentAmount(text) : { total: invoice.total ?? '0', currency: facts.currency };
  const mail = invoiceMail({
    to: to ?? invoice.customer.email,
    uuid: invoice.uuid,
    series: invoice.series ?? undefined,
    folio: invoice.folio,
    issuerName: facts.issuerName,
    issuerRfc: facts.issuerRfc,
    kind: KIND[invoice.cfdi_type],
    total: formatAmount(amount.total),
    currency: amount.currency,
    storeName: store.name,
    supportEmail: store.contactEmail ?? undefined,
    xml: xml.data,
    pdf,
    viewUrl: invoiceFileUrl(deps.publicBaseUrl, invoice.uuid, 'pdf', deps.urlSigningKey, EMAILED_LINK_SECONDS),
  });
  return deps.mailer.send(mail);
}

/**
 * The buyers' mails of the invoices a stamp batch just recorded (issue #40: folded into the batch, where a job
 * per CFDI cost ~60 Redis commands with its scripts): one statement reads them with their stores, the mails go
 * out together, one statement marks the sent ones. A mail the server refuses for now goes on to an
 * `email-invoice` job of its own (its retries with backoff); one refused for good is recorded as that job
 * records it. A worker that dies before marking them leaves them to the follow-up sweep (sweep-invoice-follow-ups).
 */
export async function mailStampedInvoices(deps: EmailDeps & { producers: Producers }, invoiceIds: readonly string[]): Promise<Map<string, BatchMailOutcome>> {
  const outcomes = new Map<string, BatchMailOutcome>();
  if (invoiceIds.length === 0) return outcomes;
  const due = (await findInvoicesWithStore(deps.db, invoiceIds)).filter(
    ({ invoice }) => invoice.uuid && invoice.xml_file_key && !invoice.email_sent_at && !invoice.email_refused_at && invoice.customer.email,
  );
  const sent: string[] = [];
  const settled = await Promise.allSettled(
    due.map(async (found) => {
      const { id } = found.invoice;
      try {
        await sendInvoiceMail(deps, found);
        sent.push(id);
        outcomes.set(id, 'sent');
      } catch (err) {
        if (!(err instanceof MailRejected)) {
          await enqueueInvoiceEmail(deps.producers, id);
          outcomes.set(id, 'retrying');
          return;
        }
        await markEmailRefused(deps.db, id);
        outcomes.set(id, 'refused');
      }
    }),
  );
  // What went out is marked even when another mail's hand-off failed (Redis away): the follow-up sweep sends only the rest.
  await markEmailsSent(deps.db, sent);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes;
}

const KIND: Record<InvoiceRow['cfdi_type'], CfdiKind> = { I: 'invoice', E: 'credit_note', P: 'payment' };

/** A payment receipt's Total is 0 XXX by rule: the buyer reads what the payment was (its Monto, in MonedaP). */
function paymentAmount(xml: string): { total: string; currency: string } {
  const pago = descendants(parseXml(xml), ['cfdi:Complemento', 'pago20:Pagos', 'pago20:Pago'])[0];
  return { total: (pago && attribute(pago, 'Monto')) ?? '0', currency: (pago && attribute(pago, 'MonedaP')) ?? '' };
}
