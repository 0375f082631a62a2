/**
 * Concepts may name a product of the merchant's catalog by `sku` and leave out its SAT keys (unit,
 * product/service, tax object): they are taken from the product. Keys the concept sends win. Taxes are
 * never taken from the product: their amounts belong to the sale and the total the POS computed.
 */
import type { ErrorDetail } from '../platform/errors.js';
import type { ConceptKeyField, QrConceptInput, QrCreateDraft, QrCreateRequest } from './qr-request.js';

export type ProductKeys = Record<ConceptKeyField, string>;

const KEY_FIELDS: readonly ConceptKeyField[] = ['sat_unit_key', 'sat_product_service_key', 'sat_tax_object_key'];

/** The skus whose products are needed: concepts with a sku and a missing key. */
export function skusToResolve(draft: QrCreateDraft): string[] {
  return [...new Set(draft.operation_data.filter((c) => c.sku !== undefined && KEY_FIELDS.some((k) => c[k] === undefined)).map((c) => c.sku!))];
}

export function resolveConceptKeys(draft: QrCreateDraft, products: ReadonlyMap<string, ProductKeys>): { request: QrCreateRequest } | { details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const concepts: QrConceptInput[] = draft.operation_data.map((c, i) => {
    const product = c.sku === undefined ? undefined : products.get(c.sku);
    const resolved = { ...c };
    for (const key of KEY_FIELDS) {
      const value = c[key] ?? product?.[key];
      if (value === undefined) {
        details.push({
          field: `operation_data[${i}].${key}`,
          code: 'required',
          message:
            c.sku === undefined
              ? `${key} is required (or a sku of the merchant's product catalog).`
              : `${key} is required: sku "${c.sku}" is not in the merchant's product catalog.`,
        });
      }
      resolved[key] = value;
    }
    return resolved as QrConceptInput;
  });
  return details.length > 0 ? { details } : { request: { ...draft, operation_data: concepts } };
}
