import { escapeHtml } from './invoice-mail.js';
import type { InvoiceMail } from './invoice-mailer.js';

/** A short notice to a buyer, without attachments: a greeting and one paragraph per line, as text and as HTML. */
export function noticeMail(to: string, subject: string, lines: readonly string[]): InvoiceMail {
  return {
    to,
    subject: subject.replace(/\s+/g, ' '),
    text: ['Hola:', '', ...lines.flatMap((l) => [l, '']), ''].join('\n'),
    html: [
      '<!doctype html>',
      '<html lang="es"><head><meta charset="utf-8"></head><body style="font-family: sans-serif; color: #222;">',
      '<p>Hola:</p>',
      ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
      '</body></html>',
      '',
    ].join('\n'),
    attachments: [],
  };
}
