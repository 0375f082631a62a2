/**
 * JSON Schema of POST /v1/qrs, used by ajv for validation and by the OpenAPI document.
 * `x-decimal` is our keyword: at most 9 integer digits and 6 decimals (numeric(15,6)); `x-cfdi-text`
 * checks a value against SAT's schema for the CFDI attribute it is written to.
 */
import { CFDI_TEXT } from '../sat/cfdi-text-rules.js';

export const QR_LIMITS = {
  maxConcepts: 100,
  maxTaxesPerConcept: 10,
  maxMetadataKeys: 20,
  maxMetadataValueLength: 500,
  maxExpiryDays: 31,
} as const;

const money = { type: 'number', minimum: 0, 'x-decimal': true } as const;
const positive = { type: 'number', exclusiveMinimum: 0, 'x-decimal': true } as const;

const taxSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tax', 'factor', 'taxable_base'],
  properties: {
    type: { type: 'string', enum: ['Traslado', 'Retencion'] },
    tax: { type: 'string', pattern: '^[0-9]{3}$' },
    factor: { type: 'string', enum: ['Tasa', 'Cuota', 'Exento'] },
    rate: { type: 'string', pattern: '^[0-9]{1,3}\\.[0-9]{6}$' },
    taxable_base: positive,
    amount: money,
  },
} as const;

const conceptSchema = {
  type: 'object',
  additionalProperties: false,
  // The SAT keys may be left out when `sku` names a product of the merchant's catalog (resolve-concept-keys.ts).
  required: ['description', 'amount', 'quantity', 'unit_price'],
  properties: {
    sku: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptSku },
    description: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptDescription },
    amount: money,
    quantity: positive,
    discount: money,
    unit_price: money,
    sat_unit_key: { type: 'string', minLength: 1, maxLength: 3 },
    sat_product_service_key: { type: 'string', pattern: '^[0-9]{8}$' },
    sat_tax_object_key: { type: 'string', pattern: '^[0-9]{2}$' },
    taxes: { type: 'array', maxItems: QR_LIMITS.maxTaxesPerConcept, items: taxSchema },
  },
} as const;

export const qrCreateRequestSchema = {
  $id: 'QrCreateRequest',
  type: 'object',
  additionalProperties: false,
  required: [
    'store_uid',
    'sale_id',
    'operation',
    'amount',
    'subtotal',
    'currency',
    'sat_payment_method',
    'sat_payment_form',
    'expires_at',
    'type_of_receipt',
    'export_code',
    'operation_data',
  ],
  properties: {
    store_uid: { type: 'string', minLength: 1, maxLength: 100 },
    sale_id: { type: 'string', minLength: 1, maxLength: 100 },
    operation: { type: 'string', enum: ['INVOICE', 'PAYMENT', 'REFUND'] },
    amount: positive,
    subtotal: money,
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    exchange_rate: { anyOf: [{ type: 'null' }, positive] },
    sat_payment_method: { type: 'string', pattern: '^[A-Z]{3}$' },
    sat_payment_form: { type: 'string', pattern: '^[0-9]{2}$' },
    expires_at: { type: 'string', format: 'date-time' },
    type_of_receipt: { type: 'string', pattern: '^[A-Z]$' },
    export_code: { type: 'string', pattern: '^[0-9]{2}$' },
    related_cfdis: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['tipo_relacion', 'cfdis'],
          properties: {
            tipo_relacion: { type: 'string', pattern: '^[0-9]{2}$' },
            cfdis: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', format: 'uuid' } },
          },
        },
      ],
    },
    global_info: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['periodicity', 'months', 'year'],
          properties: {
            periodicity: { type: 'string', pattern: '^[0-9]{2}$' },
            months: { type: 'string', pattern: '^[0-9]{2}$' },
            year: { type: 'integer', minimum: 2021, maximum: 9999 },
          },
        },
      ],
    },
    metadata: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          maxProperties: QR_LIMITS.maxMetadataKeys,
          propertyNames: { maxLength: 40 },
          additionalProperties: { type: 'string', maxLength: QR_LIMITS.maxMetadataValueLength },
        },
      ],
    },
    operation_data: { type: 'array', minItems: 1, maxItems: QR_LIMITS.maxConcepts, items: conceptSchema },
  },
} as const;
