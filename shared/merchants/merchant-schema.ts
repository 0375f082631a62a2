/** JSON Schemas of the merchant operations, used by ajv and by the OpenAPI document. */
import type { FromSchema } from 'json-schema-to-ts';
export const BILLING_PROFILES = ['GENERAL', 'FUEL', 'RESTAURANT', 'RETAIL', 'SERVICES'] as const;
export const LOGO_ANIMATIONS = ['NONE', 'BOUNCE'] as const;
export type BillingProfile = (typeof BILLING_PROFILES)[number];
export type LogoAnimation = (typeof LOGO_ANIMATIONS)[number];
export type MerchantStatus = 'ACTIVE' | 'INACTIVE';

export type Address = FromSchema<typeof addressSchema>;

/** How buyers may self-invoice this merchant's sales (an addition to the spec's Merchant). */
export interface InvoiceRules {
  /** Let a buyer confirm as público en general (XAXX010101000); off: such a sale goes to the global invoice. */
  allowGenericRfc: boolean;
  /** The c_UsoCFDI keys buyers may pick; null: every use SAT allows for the buyer's regime. */
  allowedCfdiUses: string[] | null;
  /** Withhold 1.25 % ISR when a RESICO issuer (626) invoices a company (LISR 113-J). */
  resicoWithholding: boolean;
}

export const DEFAULT_INVOICE_RULES: InvoiceRules = { allowGenericRfc: false, allowedCfdiUses: null, resicoWithholding: true };

export type MerchantFields = Omit<CreateMerchantRequest, 'issuerId'>;

export type CreateMerchantRequest = FromSchema<typeof createMerchantSchema>;

export type UpdateMerchantRequest = FromSchema<typeof updateMerchantSchema>;

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;

export const addressSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['street', 'exteriorNumber', 'neighborhood', 'city', 'state', 'zipCode'],
  properties: {
    street: text(200),
    exteriorNumber: text(30),
    interiorNumber: { anyOf: [{ type: 'null' }, text(30)] },
    neighborhood: text(200),
    city: text(100),
    state: text(100),
    zipCode: { type: 'string', pattern: '^[0-9]{5}$' },
  },
} as const;

const merchantProperties = {
  merchantName: text(200),
  billingProfile: { type: 'string', enum: BILLING_PROFILES },
  billingProfileData: {
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        maxProperties: 20,
        propertyNames: { maxLength: 50 },
        additionalProperties: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
      },
    ],
  },
  contactEmail: { type: 'string', format: 'email', maxLength: 254 },
  // Mexican numbers: 10 digits, optionally +52 and separators.
  contactPhoneNumber: { type: 'string', pattern: '^(\\+?52)?[ -]?(\\(?[0-9]{2,3}\\)?[ -]?)?[0-9]{3,4}[ -]?[0-9]{4}$', maxLength: 25 },
  address: addressSchema,
  status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
  invoiceRules: {
    type: 'object',
    additionalProperties: false,
    description:
      "How buyers may self-invoice this merchant's sales; fields left out keep their value (defaults: allowGenericRfc false, allowedCfdiUses null, resicoWithholding true).",
    properties: {
      allowGenericRfc: {
        type: 'boolean',
        description: "Let a buyer confirm as público en general (XAXX010101000). Off: the page says the sale goes into the store's global invoice.",
      },
      allowedCfdiUses: {
        anyOf: [{ type: 'null' }, { type: 'array', minItems: 1, maxItems: 30, uniqueItems: true, items: { type: 'string', pattern: '^[A-Z0-9]{3,4}$' } }],
        description: "c_UsoCFDI keys buyers may pick; null: every use SAT allows for the buyer's regime.",
      },
      resicoWithholding: { type: 'boolean', description: 'Withhold 1.25 % ISR when a RESICO issuer (626) invoices a company (LISR 113-J).' },
    },
  },
} as const;

export const createMerchantSchema = {
  $id: 'CreateMerchantRequest',
  type: 'object',
  additionalProperties: false,
  required: ['issuerId', 'merchantName'],
  properties: { issuerId: text(100), ...merchantProperties },
} as const;

export const updateMerchantSchema = {
  $id: 'UpdateMerchantRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: merchantProperties,
} as const;
