/** JSON Schemas of the merchant operations, used by ajv and by the OpenAPI document. */
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

export interface MerchantFields {
  merchantName: string;
  billingProfile?: BillingProfile;
  billingProfileData?: Record<string, string | number | boolean | null> | null;
  contactEmail?: string;
  contactPhoneNumber?: string;
  address?: Address;
  status?: MerchantStatus;
}

export interface CreateMerchantRequest extends MerchantFields {
  issuerId: string;
}

export type UpdateMerchantRequest = Partial<MerchantFields>;

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
