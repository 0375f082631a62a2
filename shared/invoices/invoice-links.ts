import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * xml_url and pdf_url: credential-free links for the buyer, signed like qr_url. They name the fiscal
 * UUID and the file kind; the signature makes them unguessable and unforgeable.
 */
export type InvoiceFileKind = 'xml' | 'pdf';

function signature(uuid: string, kind: InvoiceFileKind, key: string): Buffer {
  return createHmac('sha256', key).update(`invoice-file.${uuid}.${kind}`).digest().subarray(0, 16);
}

export function invoiceFileUrl(publicBaseUrl: string, uuid: string, kind: InvoiceFileKind, key: string): string {
  return `${publicBaseUrl}/v1/public/invoices/${uuid}.${kind}?sig=${signature(uuid, kind, key).toString('base64url')}`;
}

export function verifyInvoiceFileUrl(uuid: string, kind: InvoiceFileKind, sig: unknown, key: string): boolean {
  if (typeof sig !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(sig)) return false;
  const presented = Buffer.from(sig, 'base64url');
  const expected = signature(uuid, kind, key);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
