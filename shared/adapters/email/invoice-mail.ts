/**
 * The e-mail that carries a stamped CFDI to the buyer: a plain Spanish message in text and HTML, with the
 * XML (the legal document) and its PDF rendering attached as <UUID>.xml and <UUID>.pdf. Every value comes
 * from the merchant or the buyer, so all of it is escaped in the HTML.
 */
import type { InvoiceMail } from './invoice-mailer.js';

export interface InvoiceMailInput {
  to: string;
  uuid: string;
  series?: string;
  folio?: string;
  issuerName: string;
  issuerRfc: string;
  /** As the buyer should read it, e.g. "1,160.00". */
  total: string;
  currency: string;
  storeName: string;
  supportEmail?: string;
  xml: Buffer;
  pdf: Buffer;
  viewUrl?: string;
  /** What the CFDI is, for the wording: an invoice (the default), a credit note (type E) or a payment receipt (type P). */
  kind?: CfdiKind;
}

export type CfdiKind = 'invoice' | 'credit_note' | 'payment';

const NOUN: Record<CfdiKind, string> = { invoice: 'factura', credit_note: 'nota de crédito', payment: 'comprobante de pago' };

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

export function invoiceMail(input: InvoiceMailInput): InvoiceMail {
  // The UUID names the attachments; SAT writes it in upper case.
  const uuid = input.uuid.toUpperCase();
  if (!UUID.test(uuid)) throw new Error(`not a CFDI UUID: ${input.uuid}`);
  if (input.viewUrl !== undefined && !/^https?:$/.test(new URL(input.viewUrl).protocol)) {
    throw new Error('viewUrl must be an http(s) URL');
  }
  const rows: [string, string | undefined][] = [
    ['Emisor', `${input.issuerName} (RFC ${input.issuerRfc})`],
    ['Folio fiscal (UUID)', uuid],
    ['Serie', input.series],
    ['Folio', input.folio],
    [input.kind === 'payment' ? 'Monto pagado' : 'Total', `${input.total} ${input.currency}`],
  ];
  const details = rows.filter((row): row is [string, string] => Boolean(row[1]));
  const intro = {
    invoice: `Te enviamos la factura electrónica (CFDI) de tu compra en ${input.storeName}.`,
    credit_note: `Te enviamos la nota de crédito (CFDI de egreso) sobre tu compra en ${input.storeName}.`,
    payment: `Te enviamos el comprobante de tu pago (CFDI de pago) a ${input.storeName}.`,
  }[input.kind ?? 'invoice'];
  const attached = 'Adjuntamos el XML, que es el comprobante fiscal válido ante el SAT, y su representación impresa en PDF.';
  const help = input.supportEmail
    ? `Si tienes dudas sobre tu factura, escríbenos a ${input.supportEmail}.`
    : `Si tienes dudas sobre tu factura, comunícate con ${input.storeName}.`;

  const text = [
    'Hola:',
    '',
    intro,
    '',
    ...details.map(([label, value]) => `${label}: ${value}`),
    '',
    ...(input.viewUrl ? [`También puedes consultarla en ${input.viewUrl} (enlace válido 7 días)`, ''] : []),
    attached,
    '',
    help,
    '',
  ].join('\n');

  const e = escapeHtml;
  const helpHtml = input.supportEmail ? `Si tienes dudas sobre tu factura, escríbenos a <a href="mailto:${e(input.supportEmail)}">${e(input.supportEmail)}</a>.` : e(help);
  const html = [
    '<!doctype html>',
    '<html lang="es"><head><meta charset="utf-8"></head><body style="font-family: sans-serif; color: #222;">',
    '<p>Hola:</p>',
    `<p>${e(intro)}</p>`,
    '<table cellpadding="4" style="border-collapse: collapse;">',
    ...details.map(([label, value]) => `<tr><th align="left">${e(label)}</th><td>${e(value)}</td></tr>`),
    '</table>',
    ...(input.viewUrl ? [`<p><a href="${e(input.viewUrl)}">Ver tu factura</a> (enlace válido 7 días)</p>`] : []),
    `<p>${e(attached)}</p>`,
    `<p>${helpHtml}</p>`,
    '</body></html>',
    '',
  ].join('\n');

  return {
    to: input.to,
    // One line, whatever line breaks the merchant typed into the name.
    subject: `Tu ${NOUN[input.kind ?? 'invoice']} de ${input.issuerName}`.replace(/\s+/g, ' '),
    text,
    html,
    attachments: [
      { filename: `${uuid}.xml`, contentType: 'application/xml', content: input.xml },
      { filename: `${uuid}.pdf`, contentType: 'application/pdf', content: input.pdf },
    ],
  };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}
