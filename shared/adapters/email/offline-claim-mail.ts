/**
 * The e-mail that tells a buyer who left their tax data on an offline ticket why no invoice came of it
 * (issue #33): the store did not send the sale in time, the data no longer passes the store's rules, or the
 * sale was invoiced or closed another way.
 */
import { noticeMail } from './notice-mail.js';
import type { InvoiceMail } from './invoice-mailer.js';

export interface OfflineClaimMailInput {
  to: string;
  storeName: string;
  saleId: string;
  amount: string;
  /** Why no invoice came of it, as the buyer reads it. */
  reason: string;
  supportEmail?: string;
}

export function offlineClaimMail(input: OfflineClaimMailInput): InvoiceMail {
  const lines = [
    `No pudimos emitir la factura de tu compra en ${input.storeName} (ticket ${input.saleId}, total $${input.amount}).`,
    input.reason,
    input.supportEmail ? `Para obtener tu factura, escribe a ${input.supportEmail}.` : `Para obtener tu factura, habla con ${input.storeName}.`,
  ];
  return noticeMail(input.to, `No pudimos facturar tu compra en ${input.storeName}`, lines);
}
