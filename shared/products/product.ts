/**
 * A product of a merchant's catalog as created (one item of POST …/products) or updated. Declared here
 * because shared/ does not import the API; api/contract/products/product-schema.ts proves at compile time
 * that its schema validates exactly this type.
 */
export interface ProductTax {
  type: 'Traslado' | 'Retencion';
  tax: string;
  factor: 'Tasa' | 'Cuota' | 'Exento';
  rate?: string;
}

export interface ProductFields {
  sku: string;
  description: string;
  unitPrice: number;
  satUnitKey: string;
  satProductServiceKey: string;
  satTaxObjectKey: string;
  taxes?: ProductTax[];
}
