/**
 * Mailer over SMTP with nodemailer's pooled transport (connections are reused across a burst of invoices).
 * `url` is nodemailer's connection URL, e.g. smtp://user:pass@host:587 or smtps://host:465.
 * Nodemailer's own logging stays off: its log lines carry recipients and server replies.
 */
import { createTransport, type NodemailerError } from 'nodemailer';
import { MailRejected, MailUnavailable, type InvoiceMail, type Mailer } from './invoice-mailer.js';

export function smtpMailer(options: { url: string; from: string; timeoutMs: number }): Mailer & { close(): void } {
  const transport = createTransport({ pool: true, url: options.url, logger: false, debug: false });
  return {
    async send(mail: InvoiceMail) {
      try {
        const info = await transport.sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          attachments: mail.attachments,
          // One deadline for the whole attempt (waiting for a pooled connection, connecting, every reply);
          // nodemailer's per-phase timeouts would add up to minutes. The pool closes the connection on abort.
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        return { messageId: info.messageId };
      } catch (err) {
        throw mailError(err, options.timeoutMs);
      }
    },
    close: () => transport.close(),
  };
}

/**
 * Only a refusal of this message (sender, recipient or content) is final: a 5xx reply to MAIL FROM, RCPT TO
 * or DATA, or nodemailer refusing the envelope itself (malformed address). Everything else is temporary,
 * including 4xx, 503 (bad command sequence, fine on a new connection) and credential or TLS failures,
 * which an operator fixes without the message changing.
 */
function mailError(err: unknown, timeoutMs: number): MailUnavailable | MailRejected {
  const e = (err ?? {}) as NodemailerError;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  // The only abort is our own deadline.
  if (e.code === 'EABORT') return new MailUnavailable(`no answer from the mail server within ${timeoutMs} ms`);
  const aboutThisMessage = e.code === 'EENVELOPE' || e.code === 'EMESSAGE';
  if (aboutThisMessage && e.permanent !== false) return new MailRejected(message, responseCode);
  return new MailUnavailable(message, responseCode);
}
