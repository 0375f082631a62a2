/**
 * Sending the invoice to the buyer by e-mail, seen from the service: the message, and the small interface
 * every sender implements (SMTP in shared/adapters/email/smtp-mailer.ts, against fakes/smtp-server.ts in
 * development and tests). One call is one attempt; the caller decides whether and when to retry.
 */
export interface InvoiceMailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface InvoiceMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: InvoiceMailAttachment[];
}

export interface Mailer {
  send(mail: InvoiceMail): Promise<{ messageId: string }>;
}

/**
 * Worth another attempt later: connection refused or dropped, no answer in time, a 4xx reply, or a
 * server-side setup problem (TLS, credentials) that an operator can fix without the message changing.
 */
export class MailUnavailable extends Error {
  /** `responseCode` is the SMTP reply code when the server gave one, e.g. 451. */
  constructor(
    message: string,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'MailUnavailable';
  }
}

/** The server refused this message for good (5xx, e.g. unknown recipient): sending it again gets the same. */
export class MailRejected extends Error {
  /** `responseCode` is the SMTP reply code when the server gave one, e.g. 550. */
  constructor(
    message: string,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'MailRejected';
  }
}
