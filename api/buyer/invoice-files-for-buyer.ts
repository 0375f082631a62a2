import { AppError } from '../../shared/platform/errors.js';
import { buyerRfcProof } from '../../shared/invoices/buyer-rfc-proof.js';
import { invoiceFileUrl, SHOWN_LINK_SECONDS } from '../../shared/invoices/invoice-links.js';
import { isStamped, liveInvoice } from '../../shared/repositories/invoices.js';
import type { Sale } from '../../shared/repositories/sales.js';
import type { ApiDeps } from '../deps.js';
import { reserveRfcAttempt } from './rfc-attempts.js';

/**
 * The invoice's XML and PDF links for whoever proves the buyer's RFC (POST /v1/public/qrs/invoice-files):
 * the ticket alone shows that the sale is invoiced, never the files, which carry the buyer's tax data.
 * 409 before the invoice is stamped; 403 `buyer_rfc_mismatch` for another RFC, `buyer_rfc_generic` for an
 * invoice to a generic RFC (only the e-mail reaches its files); wrong RFCs are counted (rfc-attempts.ts).
 */
export async function invoiceFilesForBuyer(deps: ApiDeps, sale: Sale, rfc: string, now: Date = new Date()) {
  const invoice = await liveInvoice(deps.db, sale.record.transaction.id);
  if (!invoice || invoice.status !== 'ACTIVE' || !isStamped(invoice) || !invoice.uuid) {
    throw new AppError(409, 'invoice_not_ready', 'This sale has no stamped invoice (yet).');
  }
  const attempt = await reserveRfcAttempt(deps, sale.record.transaction.id);
  const proof = buyerRfcProof(rfc, invoice.customer.rfc);
  if (proof === 'generic') {
    throw new AppError(
      403,
      'buyer_rfc_generic',
      'This invoice is to a generic RFC, which proves nobody: its files are only in the e-mail sent to the address given at confirmation.',
      {
        details: [{ field: 'rfc', code: 'generic', message: 'A generic RFC (XAXX010101000, XEXX010101000) is no proof.' }],
      },
    );
  }
  if (proof === 'mismatch') {
    throw new AppError(403, 'buyer_rfc_mismatch', "That RFC is not the invoice's buyer.", {
      details: [{ field: 'rfc', code: 'mismatch', message: 'Not the RFC on the invoice.' }],
    });
  }
  await attempt.refund();
  const link = (kind: 'xml' | 'pdf') => invoiceFileUrl(deps.config.publicBaseUrl, invoice.uuid!, kind, deps.config.urlSigningKey, SHOWN_LINK_SECONDS, now);
  return {
    uuid: invoice.uuid,
    issued_at: (invoice.stamped_at ?? invoice.created_at).toISOString(),
    xml_url: link('xml'),
    pdf_url: link('pdf'),
    links_expire_at: new Date(Math.floor(now.getTime() / 1000 + SHOWN_LINK_SECONDS) * 1000).toISOString(),
  };
}
