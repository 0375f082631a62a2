import type { ErrorDetail } from '../platform/errors.js';
import { checkConceptKeys, type RuleContext } from '../qr/check-qr-catalogs.js';
import type { ProductFields } from './product.js';

const NAMES = { unitKey: 'satUnitKey', productKey: 'satProductServiceKey', taxObjectKey: 'satTaxObjectKey' };

/** A product's SAT keys and tax rates, checked with the same rules as a QR concept (no amounts). */
export function checkProduct(product: ProductFields, field: string, ctx: RuleContext): ErrorDetail[] {
  return checkConceptKeys(
    ctx,
    field,
    {
      unitKey: product.satUnitKey,
      productKey: product.satProductServiceKey,
      taxObjectKey: product.satTaxObjectKey,
      taxes: product.taxes ?? [],
    },
    { names: NAMES, withAmounts: false },
  );
}
