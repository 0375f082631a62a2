/**
 * JSON Schemas of the earlier contract (spec "Versioning" point 4): the body of POST /api/v1/qrs, used by
 * ajv for validation and by the OpenAPI document, and the two answer shapes for the document.
 * Every field it shares with POST /v1/qrs is the very schema object of ../qrs/qr-request-schema.ts, so the
 * two contracts accept the same values.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { qrCreateRequestSchema } from '../qrs/qr-request-schema.js';

const current = qrCreateRequestSchema.properties;
const currentConcept = current.operation_data.items;

/** The earlier concept: the current one without `discount`, which it did not have. */
const legacyConceptSchema = {
  type: 'object',
  additionalProperties: false,
  required: currentConcept.required,
  properties: {
    sku: currentConcept.properties.sku,
    description: currentConcept.properties.description,
    quantity: currentConcept.properties.quantity,
    unit_price: currentConcept.properties.unit_price,
    amount: currentConcept.properties.amount,
    sat_unit_key: currentConcept.properties.sat_unit_key,
    sat_product_service_key: currentConcept.properties.sat_product_service_key,
    sat_tax_object_key: currentConcept.properties.sat_tax_object_key,
    taxes: currentConcept.properties.taxes,
  },
} as const;

export const legacyQrCreateRequestSchema = {
  $id: 'LegacyQrCreateRequest',
  type: 'object',
  additionalProperties: false,
  required: ['store', 'issuer_rfc', 'amount', 'subtotal', 'currency', 'sat_payment_method', 'expires_at', 'operation', 'operation_data'],
  properties: {
    store: { type: 'string', minLength: 1, maxLength: 254, description: "The API key's point of sale: its store_uid (externalMerchantId), merchantId or name (any case)" },
    issuer_rfc: { type: 'string', minLength: 12, maxLength: 13, description: "Must be the RFC of the API key's issuer" },
    amount: current.amount,
    subtotal: current.subtotal,
    // The earlier contract has no exchange rate, which a CFDI in another currency requires.
    currency: { type: 'string', enum: ['MXN'] },
    sat_payment_method: { ...current.sat_payment_form, description: 'A payment FORM key (c_FormaPago, e.g. 04), despite the name' },
    expires_at: current.expires_at,
    operation: current.operation,
    operation_data: { ...current.operation_data, items: legacyConceptSchema },
  },
} as const;

export type LegacyQrConcept = LegacyQrCreateRequest['operation_data'][number];

export type LegacyQrCreateRequest = FromSchema<typeof legacyQrCreateRequestSchema>;

/** 201 of POST /api/v1/qrs. */
export const legacyQrCreatedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['qr_base64', 'qr_url', 'qr_content', 'created_at', 'expires_at'],
  properties: {
    qr_base64: { type: 'string', description: 'PNG as a data URI' },
    qr_url: { type: 'string', description: 'Signed image URL, valid until expires_at' },
    qr_content: { type: 'string', description: 'The deep link the QR encodes (v, t, m)' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const;

const nullableText = { anyOf: [{ type: 'string' }, { type: 'null' }] } as const;

/** 200 of GET /api/v1/qrs?v&t&m. */
export const legacyQrResolvedSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'store',
    'issuer_rfc',
    'issuer_name',
    'amount',
    'subtotal',
    'currency',
    'sat_payment_method',
    'sat_payment_method_desc',
    'created_at',
    'expires_at',
    'operation',
    'operation_data',
  ],
  properties: {
    id: { type: 'string', description: 'qr_id: read it at GET /v1/qrs/{qrId}' },
    store: { type: 'string', description: 'store_uid' },
    issuer_rfc: { type: 'string' },
    issuer_name: { type: 'string' },
    amount: { type: 'number' },
    subtotal: { type: 'number' },
    currency: { type: 'string' },
    sat_payment_method: { type: 'string', description: 'The payment FORM key (c_FormaPago)' },
    sat_payment_method_desc: { ...nullableText, description: 'Its c_FormaPago description' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
    operation: { type: 'string' },
    operation_data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'sku',
          'description',
          'quantity',
          'unit_price',
          'amount',
          'sat_unit_key',
          'sat_unit_desc',
          'sat_product_service_key',
          'sat_product_service_desc',
          'sat_tax_object_key',
          'sat_tax_object_desc',
          'taxes',
        ],
        properties: {
          sku: nullableText,
          description: { type: 'string' },
          quantity: { type: 'number' },
          unit_price: { type: 'number' },
          amount: { type: 'number' },
          sat_unit_key: { type: 'string' },
          sat_unit_desc: nullableText,
          sat_product_service_key: { type: 'string' },
          sat_product_service_desc: nullableText,
          sat_tax_object_key: { type: 'string' },
          sat_tax_object_desc: nullableText,
          taxes: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['type', 'tax', 'factor', 'rate', 'taxable_base', 'amount'],
              properties: {
                type: { type: 'string' },
                tax: { type: 'string' },
                factor: { type: 'string' },
                rate: nullableText,
                taxable_base: { type: 'number' },
                amount: { anyOf: [{ type: 'number' }, { type: 'null' }] },
              },
            },
          },
        },
      },
    },
  },
} as const;
