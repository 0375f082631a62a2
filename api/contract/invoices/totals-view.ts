import type { DocumentTotals } from '../../../shared/domain/cfdi/anexo20-amounts.js';
import { toJsonNumber } from '../../../shared/domain/money.js';

/** An invoice's totals as the API shows them. */
export function totalsView(totals: DocumentTotals) {
  return {
    subtotal: toJsonNumber(totals.subtotal),
    discount: toJsonNumber(totals.discount),
    transferred_taxes: toJsonNumber(totals.transferred),
    withheld_taxes: toJsonNumber(totals.withheld),
    total: toJsonNumber(totals.total),
  };
}
