import type { FromSchema } from 'json-schema-to-ts';
import { toJsonNumber } from '../../../shared/domain/money.js';
import type { ProductRow } from '../../../shared/repositories/products.js';
import type { SatCatalogs } from '../../../shared/sat/catalogs.js';
import type { merchantProductResponseSchema } from './product-schema.js';

// Typed from the schema the OpenAPI document publishes: the compiler holds the view to it.
export type MerchantProductResponse = FromSchema<typeof merchantProductResponseSchema>;

/** MerchantProductResponse. */
export function productView(row: ProductRow, catalogs: SatCatalogs): MerchantProductResponse {
  return {
    productId: row.id,
    merchantId: row.merchant_id,
    sku: row.sku,
    description: row.description,
    unitPrice: toJsonNumber(row.unit_price),
    satUnitKey: row.sat_unit_key,
    satUnitDesc: catalogs.description('c_ClaveUnidad', row.sat_unit_key) ?? null,
    satProductServiceKey: row.sat_product_service_key,
    satProductServiceDesc: catalogs.description('c_ClaveProdServ', row.sat_product_service_key) ?? null,
    satTaxObjectKey: row.sat_tax_object_key,
    satTaxObjectDesc: catalogs.description('c_ObjetoImp', row.sat_tax_object_key) ?? null,
    taxes: row.taxes,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
