/**
 * email-invoice: the XML and the PDF to the buyer's e-mail (or, on request, another address), queued by the
 * stamp. The PDF is the one kept if a download made one (or an invoice from before PDFs were made on demand),
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
import type { InvoicePayload } from '../shared/platform/jobs.js';
import { formatAmount } from '../shared/domain/money.js';
import { findInvoiceWithStore, markEmailRefused, markEmailSent, type InvoiceRow } from '../shared/repositories/invoices.js';
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
): Promise<{ messageId: string; qrId: string | null; uuid: string; recipient: 'buyer' | 'requested' }> {
  const found = await findInvoiceWithStore(deps.db, job.data.invoiceId);
  const invoice = found?.invoice;
  if (!found || !invoice?.uuid || !invoice.xml_file_key) throw new UnrecoverableError(`invoice ${job.data.invoiceId} is not stamped`);
  const { store } = found;
  const [xml, kept] = await Promise.all([deps.files.get(invoice.xml_file_key), invoice.pdf_file_key ? deps.files.get(invoice.pdf_file_key) : undefined]);
  if (!xml) throw new UnrecoverableError(`the XML of invoice ${invoice.id} is missing from storage`);
  const pdf = kept?.data ?? (await renderStampedInvoicePdf(deps, xml.data, store.invoiceLogoUrl));
  // The stamped XML says who issued it and in what currency, for every kind of CFDI.
  const text = xml.data.toString('utf8');
  const facts = stampedFacts(text);
  const amount = invoice.cfdi_type === 'P' ? paymentAmount(text) : { total: invoice.total ?? '0', currency: facts.currency };
  const mail = invoiceMail({
    to: job.data.to ?? invoice.customer.email,
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
  try {
    const sent = await deps.mailer.send(mail);
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

const KIND: Record<InvoiceRow['cfdi_type'], CfdiKind> = { I: 'invoice', E: 'credit_note', P: 'payment' };

/** A payment receipt's Total is 0 XXX by rule: the buyer reads what the payment was (its Monto, in MonedaP). */
function paymentAmount(xml: string): { total: string; currency: string } {
  const pago = descendants(parseXml(xml), ['cfdi:Complemento', 'pago20:Pagos', 'pago20:Pago'])[0];
  return { total: (pago && attribute(pago, 'Monto')) ?? '0', currency: (pago && attribute(pago, 'MonedaP')) ?? '' };
}
