import { createHmac } from 'node:crypto';
import { verifySignedExpiryLink, type SignedLinkCheck } from '../platform/crypto/signed-expiry-link.js';

/**
 * xml_url and pdf_url: credential-free links to an invoice's files, signed like qr_url. They name the
 * fiscal UUID, the file kind and an expiry (`exp`, unix seconds); the signature covers all three, so the
 * links are unguessable, unforgeable and short-lived (the XML carries the buyer's RFC, name and zip).
 */
export type InvoiceFileKind = 'xml' | 'pdf';

/** Links shown on a page or in an API answer (re-issued on every read). */
export const SHOWN_LINK_SECONDS = 60 * 60;
/** Links in the invoice e-mail: the buyer may open it days later. */
export const EMAILED_LINK_SECONDS = 7 * 24 * 60 * 60;

function signature(uuid: string, kind: InvoiceFileKind, exp: number, key: string): string {
  return createHmac('sha256', key).update(`invoice-file.${uuid}.${kind}.${exp}`).digest().subarray(0, 16).toString('base64url');
}

/** The signed link, valid for `lifetimeSeconds` from `now`. */
export function invoiceFileUrl(publicBaseUrl: string, uuid: string, kind: InvoiceFileKind, key: string, lifetimeSeconds = SHOWN_LINK_SECONDS, now: Date = new Date()): string {
  const exp = Math.floor(now.getTime() / 1000) + lifetimeSeconds;
  return `${publicBaseUrl}/v1/public/invoices/${uuid}.${kind}?exp=${exp}&sig=${signature(uuid, kind, exp, key)}`;
}

export type InvoiceFileUrlCheck = SignedLinkCheck;

/** A forged or altered link is `bad_signature`; a genuine one past its `exp` is `expired`. */
export function verifyInvoiceFileUrl(uuid: string, kind: InvoiceFileKind, exp: unknown, sig: unknown, key: string, now: Date = new Date()): InvoiceFileUrlCheck {
  return verifySignedExpiryLink(exp, sig, (seconds) => signature(uuid, kind, seconds, key), now);
}
