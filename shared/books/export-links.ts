import { createHmac } from 'node:crypto';
import { verifySignedExpiryLink, type SignedLinkCheck } from '../platform/crypto/signed-expiry-link.js';

/**
 * The download link of a built export (issue #32): credential-free, signed like the invoice file links
 * (shared/invoices/invoice-links.ts) with URL_SIGNING_KEY over the export id and an expiry (`exp`, unix seconds),
 * so it is unguessable, unforgeable and short-lived. Re-issued on every read of the export.
 */
export const EXPORT_LINK_SECONDS = 60 * 60;

function signature(exportId: string, exp: number, key: string): string {
  return createHmac('sha256', key).update(`invoice-export.${exportId}.${exp}`).digest().subarray(0, 16).toString('base64url');
}

/** The signed link, valid for `lifetimeSeconds` from `now` but never past `notAfter` (the export's removal). */
export function exportDownloadUrl(publicBaseUrl: string, exportId: string, key: string, notAfter: Date, lifetimeSeconds = EXPORT_LINK_SECONDS, now: Date = new Date()): string {
  const exp = Math.min(Math.floor(now.getTime() / 1000) + lifetimeSeconds, Math.floor(notAfter.getTime() / 1000));
  return `${publicBaseUrl}/v1/public/exports/${exportId}.zip?exp=${exp}&sig=${signature(exportId, exp, key)}`;
}

/** When a link made now stops working. */
export function exportLinkExpiry(notAfter: Date, lifetimeSeconds = EXPORT_LINK_SECONDS, now: Date = new Date()): Date {
  return new Date(Math.min(Math.floor(now.getTime() / 1000) + lifetimeSeconds, Math.floor(notAfter.getTime() / 1000)) * 1000);
}

export type ExportUrlCheck = SignedLinkCheck;

/** A forged or altered link is `bad_signature`; a genuine one past its `exp` is `expired`. */
export function verifyExportDownloadUrl(exportId: string, exp: unknown, sig: unknown, key: string, now: Date = new Date()): ExportUrlCheck {
  return verifySignedExpiryLink(exp, sig, (seconds) => signature(exportId, seconds, key), now);
}
