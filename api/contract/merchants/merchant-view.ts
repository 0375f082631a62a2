import type { FromSchema } from 'json-schema-to-ts';
import type { MerchantRow } from '../../../shared/repositories/merchants.js';
import type { merchantSchema, merchantSummarySchema } from './merchant-schema.js';

// Typed from the schemas the OpenAPI document publishes: the compiler holds the views to them.
export type Merchant = FromSchema<typeof merchantSchema>;
export type MerchantSummary = FromSchema<typeof merchantSummarySchema>;

/** The spec's Merchant. */
export function merchantView(row: MerchantRow): Merchant {
  return {
    merchantId: row.id,
    externalMerchantId: row.external_merchant_id,
    issuerId: row.issuer_id,
    merchantName: row.name,
    billingProfile: row.billing_profile,
    billingProfileData: row.billing_profile_data,
    contactEmail: row.contact_email,
    contactPhoneNumber: row.contact_phone_number,
    invoiceLogoUrl: row.invoice_logo_url,
    invoiceLogoFileName: row.invoice_logo_file_name,
    appLogoUrl: row.app_logo_url,
    appLogoFileName: row.app_logo_file_name,
    logoAnimation: row.logo_animation,
    address: row.address,
    status: row.status,
    invoiceRules: { allowGenericRfc: row.allow_generic_rfc, allowedCfdiUses: row.allowed_cfdi_uses, resicoWithholding: row.resico_withholding },
  };
}

/** The spec's MerchantSummary (list item). */
export function merchantSummaryView(row: MerchantRow): MerchantSummary {
  return {
    merchantId: row.id,
    merchantName: row.name,
    city: row.address?.city ?? null,
    state: row.address?.state ?? null,
    invoiceLogoUrl: row.invoice_logo_url,
    appLogoUrl: row.app_logo_url,
    status: row.status,
  };
}
