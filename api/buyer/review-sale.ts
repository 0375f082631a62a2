import { buyerSaleView } from '../contract/buyer/buyer-sale-view.js';
import { previewSale } from '../../shared/invoices/seal-sale.js';
import { latestInvoice } from '../../shared/repositories/invoices.js';
import { markScanned } from '../../shared/repositories/qr-transactions.js';
import { expeditionPlace, type Sale } from '../../shared/repositories/sales.js';
import type { Db } from '../../shared/platform/db.js';
import { viewContext, type ApiDeps } from '../deps.js';

/** The issuer side of a preview: the totals do not depend on folio or date. */
export function saleParties(sale: Sale) {
  return {
    issuer: { rfc: sale.issuer.rfc, name: sale.issuer.name, taxRegime: sale.issuer.taxRegime },
    expeditionPlace: expeditionPlace(sale),
    folio: '0',
    issuedLocal: '',
    resicoWithholding: sale.merchant.invoiceRules.resicoWithholding,
  };
}

/**
 * What the buyer reviews of an invoiceable sale (see ensureInvoiceable), for the JSON resolve route and
 * the buyer's page alike. The first review moves PENDING to SCANNED, on the primary; `db`: where the sale was
 * read (saleToShow's replica), for its latest confirmation.
 */
export async function reviewSale(deps: ApiDeps, sale: Sale, db: Db = deps.db): Promise<ReturnType<typeof buyerSaleView>> {
  const t = sale.record.transaction;
  if (t.status === 'PENDING') {
    const scanned = await markScanned(deps.db, t.id);
    if (scanned) Object.assign(t, scanned);
  }
  const totals = previewSale(sale.record, undefined, saleParties(sale), deps.catalogs);
  return buyerSaleView(sale, totals, await latestInvoice(db, t.id), viewContext(deps));
}
