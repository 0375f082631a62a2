/** JSON Schemas of the merchant operations, used by ajv and by the OpenAPI document. */
import type { FromSchema } from 'json-schema-to-ts';
import { BILLING_PROFILES, LOGO_ANIMATIONS, type Address, type MerchantFields } from '../../../shared/merchants/merchant.js';
import type { Proof, SameType } from '../same-type.js';

export type CreateMerchantRequest = FromSchema<typeof createMerchantSchema>;

export type UpdateMerchantRequest = FromSchema<typeof updateMerchantSchema>;

// What ajv validates is the merchants feature's Address and MerchantFields, field for field: a change on one side alone fails tsc.
type _ValidatesAddress = Proof<SameType<FromSchema<typeof addressSchema>, Address>>;
type _ValidatesMerchantFields = Proof<SameType<Omit<CreateMerchantRequest, 'issuerId'>, MerchantFields>>;

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

const nullableText = { type: ['string', 'null'] } as const;
const merchantStatus = { type: 'string', enum: ['ACTIVE', 'INACTIVE'], description: 'INACTIVE: no new QRs and no invoicing; its transactions stay readable' } as const;

/** The spec's Merchant as the API answers it (merchant-view.ts builds it; a test validates real answers). */
export const merchantSchema = {
  $id: 'Merchant',
  type: 'object',
  additionalProperties: false,
  required: [
    'merchantId',
    'externalMerchantId',
    'issuerId',
    'merchantName',
    'billingProfile',
    'billingProfileData',
    'contactEmail',
    'contactPhoneNumber',
    'invoiceLogoUrl',
    'invoiceLogoFileName',
    'appLogoUrl',
    'appLogoFileName',
    'logoAnimation',
    'address',
    'status',
    'invoiceRules',
  ],
  properties: {
    merchantId: { type: 'string', description: '`mer_…`' },
    externalMerchantId: { type: 'string' },
    issuerId: { type: 'string', description: 'The issuer (`inv_data_…`) whose RFC its invoices carry' },
    merchantName: { type: 'string' },
    billingProfile: { type: 'string', enum: BILLING_PROFILES },
    billingProfileData: { type: ['object', 'null'] },
    contactEmail: nullableText,
    contactPhoneNumber: nullableText,
    invoiceLogoUrl: nullableText,
    invoiceLogoFileName: nullableText,
    appLogoUrl: nullableText,
    appLogoFileName: nullableText,
    logoAnimation: { type: 'string', enum: LOGO_ANIMATIONS },
    address: { anyOf: [{ type: 'null' }, addressSchema] },
    status: merchantStatus,
    invoiceRules: {
      type: 'object',
      additionalProperties: false,
      required: ['allowGenericRfc', 'allowedCfdiUses', 'resicoWithholding'],
      properties: {
        allowGenericRfc: merchantProperties.invoiceRules.properties.allowGenericRfc,
        allowedCfdiUses: { type: ['array', 'null'], items: { type: 'string' }, description: merchantProperties.invoiceRules.properties.allowedCfdiUses.description },
        resicoWithholding: merchantProperties.invoiceRules.properties.resicoWithholding,
      },
    },
  },
} as const;

/** POST /v1/qrs/merchants 201: the Merchant and its first API key. */
export const merchantCreatedSchema = {
  $id: 'MerchantCreated',
  description: 'The Merchant, plus `apiKey`: its first development API key, shown only in this answer (`PUT …/api-key/regenerate` replaces it)',
  type: 'object',
  additionalProperties: false,
  required: [...merchantSchema.required, 'apiKey'],
  properties: { ...merchantSchema.properties, apiKey: { type: 'string', description: 'Send it as `X-API-Key`; shown once' } },
} as const;

/** The spec's MerchantSummary (list item). */
export const merchantSummarySchema = {
  $id: 'MerchantSummary',
  type: 'object',
  additionalProperties: false,
  required: ['merchantId', 'merchantName', 'city', 'state', 'invoiceLogoUrl', 'appLogoUrl', 'status'],
  properties: {
    merchantId: { type: 'string' },
    merchantName: { type: 'string' },
    city: nullableText,
    state: nullableText,
    invoiceLogoUrl: nullableText,
    appLogoUrl: nullableText,
    status: merchantStatus,
  },
} as const;

/** The spec's InvoiceModeResponse, plus what the certificate says (api/merchants/invoice-mode.ts). */
export const invoiceModeResponseSchema = {
  $id: 'InvoiceModeResponse',
  type: 'object',
  additionalProperties: false,
  required: ['merchantId', 'invoiceType', 'csdDataRequest', 'apiDataRequest', 'certificate'],
  properties: {
    merchantId: { type: 'string' },
    invoiceType: { type: 'string', enum: ['SERVICE'], description: "SERVICE: the service seals with the merchant's CSD and stamps with its PAC" },
    csdDataRequest: {
      type: 'object',
      additionalProperties: false,
      required: ['cerFileName', 'keyFileName', 'serialNumberPrefix', 'businessCode'],
      properties: {
        cerFileName: { type: 'string' },
        keyFileName: { type: 'string' },
        serialNumberPrefix: { ...nullableText, description: 'Serie of the CFDIs' },
        businessCode: nullableText,
      },
    },
    apiDataRequest: { type: 'null', description: 'An external billing API: not offered' },
    certificate: {
      type: 'object',
      additionalProperties: false,
      required: ['number', 'rfc', 'validFrom', 'validTo', 'mode'],
      description: 'Addition to the spec: what the CSD certificate says (the key and its password are never answered)',
      properties: {
        number: { type: 'string', description: 'NoCertificado (20 digits)' },
        rfc: { type: 'string' },
        validFrom: { type: 'string', format: 'date-time' },
        validTo: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['development', 'production'] },
      },
    },
  },
} as const;

/** PUT /v1/qrs/merchants/{merchantId}/api-key/regenerate 200. */
export const regeneratedApiKeySchema = {
  $id: 'RegeneratedApiKey',
  type: 'object',
  additionalProperties: false,
  required: ['merchantId', 'apiKey', 'mode'],
  properties: {
    merchantId: { type: 'string' },
    apiKey: { type: 'string', description: 'The new key, shown once; the previous one fails from the next request' },
    mode: { type: 'string', enum: ['development', 'production'] },
  },
} as const;
