/**
 * The e-mail that tells the buyer their invoice was cancelled: which one (UUID), when it was issued, the
 * acuse's date, and that it is void and must not be deducted. Sent to the address given at confirmation.
 */
import { noticeMail } from './notice-mail.js';
import type { InvoiceMail } from './invoice-mailer.js';

export interface CancellationMailInput {
  to: string;
  uuid: string;
  issuerName: string;
  storeName: string;
  /** Both as the buyer reads them, e.g. "24 de noviembre de 2026". */
  issuedOn: string;
  cancelledOn: string;
  supportEmail?: string;
}

export function cancellationMail(input: CancellationMailInput): InvoiceMail {
  const lines = [
    `${input.storeName} canceló ante el SAT la factura electrónica (CFDI) de tu compra.`,
    `Folio fiscal (UUID): ${input.uuid.toUpperCase()}`,
    `Emitida el ${input.issuedOn}; cancelada el ${input.cancelledOn} (fecha del acuse del SAT).`,
    'Esta factura ya no es válida: no la uses ni la deduzcas. Si necesitas una nueva, habla con la tienda.',
    input.supportEmail ? `Si tienes dudas, escríbenos a ${input.supportEmail}.` : `Si tienes dudas, comunícate con ${input.storeName}.`,
  ];
  return noticeMail(input.to, `Tu factura de ${input.issuerName} fue cancelada`, lines);
}
