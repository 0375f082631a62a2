/**
 * The buyer's tax data as an invoice carries it (the spec's "customer", plus the e-mail and a foreign
 * buyer's residence). Declared here because shared/ does not import the API;
 * api/contract/buyer/customer-schema.ts proves at compile time that its schema validates exactly this type.
 */
export interface Customer {
  rfc: string;
  name: string;
  tax_regime: string;
  postal_code: string;
  cfdi_use: string;
  email: string;
  tax_residence?: string;
}
