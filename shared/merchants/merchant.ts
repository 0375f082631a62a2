/**
 * What a merchant (a point of sale) is to the features: its profiles, logo animation, status, address, the
 * rules of its buyers' self-invoicing, and the fields it is created and updated with. Declared here because
 * shared/ does not import the API; api/contract/merchants/merchant-schema.ts builds its schemas from these
 * lists and proves at compile time that they validate exactly these types.
 */
export const BILLING_PROFILES = ['GENERAL', 'FUEL', 'RESTAURANT', 'RETAIL', 'SERVICES'] as const;
export const LOGO_ANIMATIONS = ['NONE', 'BOUNCE'] as const;
export type BillingProfile = (typeof BILLING_PROFILES)[number];
export type LogoAnimation = (typeof LOGO_ANIMATIONS)[number];
export type MerchantStatus = 'ACTIVE' | 'INACTIVE';

export interface Address {
  street: string;
  exteriorNumber: string;
  interiorNumber?: string | null;
  neighborhood: string;
  city: string;
  state: string;
  zipCode: string;
}

/** How buyers may self-invoice this merchant's sales (an addition to the spec's Merchant). */
export interface InvoiceRules {
  /** Let a buyer confirm as público en general (XAXX010101000); off: such a sale goes to the global invoice. */
  allowGenericRfc: boolean;
  /** The c_UsoCFDI keys buyers may pick; null: every use SAT allows for the buyer's regime. */
  allowedCfdiUses: string[] | null;
  /** Withhold 1.25 % ISR when a RESICO issuer (626) invoices a company (LISR 113-J). */
  resicoWithholding: boolean;
}

/** A merchant's own fields, as created (POST /v1/qrs/merchants without its issuerId); updates send any of them. */
export interface MerchantFields {
  merchantName: string;
  billingProfile?: BillingProfile;
  billingProfileData?: Record<string, string | number | boolean | null> | null;
  contactEmail?: string;
  contactPhoneNumber?: string;
  address?: Address;
  status?: MerchantStatus;
  /** Fields left out keep their value. */
  invoiceRules?: Partial<InvoiceRules>;
}
