import { AppError } from '../../shared/platform/errors.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import type { Sale } from '../../shared/repositories/sales.js';
import { saleFromLink } from '../buyer/open-sale.js';
import type { ApiDeps } from '../deps.js';

/**
 * The sale behind v, t and m, verified as the buyer's resolve does (400 bad link, 404 unknown token), and
 * only when it is the API key's own (merchant and mode): another's is the same 404, so a key cannot probe.
 */
export async function ownSaleFromLink(deps: ApiDeps, principal: ApiKeyPrincipal, params: { v?: unknown; t?: unknown; m?: unknown }): Promise<Sale> {
  const sale = await saleFromLink(deps, params);
  const t = sale.record.transaction;
  if (t.merchant_id !== principal.merchantId || t.mode !== principal.mode) {
    throw new AppError(404, 'qr_not_found', 'This QR is not known; ask the store for a new one.');
  }
  return sale;
}
