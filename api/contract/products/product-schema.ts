/** Product catalog requests (the spec names the operations, not the shapes): JSON Schemas for ajv and OpenAPI. */
import type { FromSchema } from 'json-schema-to-ts';
import type { ProductFields } from '../../../shared/products/product.js';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';
import type { Proof, SameType } from '../same-type.js';

// What ajv validates is the products feature's ProductFields, field for field: a change on one side alone fails tsc.
type _ValidatesProductFields = Proof<SameType<FromSchema<typeof createMerchantProductSchema>[number], ProductFields>>;

export const PRODUCT_LIMITS = { maxPerRequest: 100, maxTaxes: 10 } as const;

const productTaxSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tax', 'factor'],
  properties: {
    type: { type: 'string', enum: ['Traslado', 'Retencion'] },
    tax: { type: 'string', pattern: '^[0-9]{3}$' },
    factor: { type: 'string', enum: ['Tasa', 'Cuota', 'Exento'] },
    rate: { type: 'string', pattern: '^[0-9]{1,3}\\.[0-9]{6}$' },
  },
} as const;

const productProperties = {
  sku: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptSku },
  description: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptDescription },
  unitPrice: { type: 'number', minimum: 0, 'x-decimal': true },
  satUnitKey: { type: 'string', minLength: 1, maxLength: 3 },
  satProductServiceKey: { type: 'string', pattern: '^[0-9]{8}$' },
  satTaxObjectKey: { type: 'string', pattern: '^[0-9]{2}$' },
  taxes: { type: 'array', maxItems: PRODUCT_LIMITS.maxTaxes, items: productTaxSchema },
} as const;

export const createMerchantProductSchema = {
  $id: 'CreateMerchantProductRequest',
  description: 'A list of products; all are created or none.',
  type: 'array',
  minItems: 1,
  maxItems: PRODUCT_LIMITS.maxPerRequest,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['sku', 'description', 'unitPrice', 'satUnitKey', 'satProductServiceKey', 'satTaxObjectKey'],
    properties: productProperties,
  },
} as const;

export const updateMerchantProductSchema = {
  $id: 'UpdateMerchantProductRequest',
  description: 'Any subset of the product fields.',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: productProperties,
} as const;

const nullableText = { type: ['string', 'null'] } as const;

/** MerchantProductResponse: a catalog product as the API answers it (product-view.ts builds it). */
export const merchantProductResponseSchema = {
  $id: 'MerchantProductResponse',
  type: 'object',
  additionalProperties: false,
  required: [
    'productId',
    'merchantId',
    'sku',
    'description',
    'unitPrice',
    'satUnitKey',
    'satUnitDesc',
    'satProductServiceKey',
    'satProductServiceDesc',
    'satTaxObjectKey',
    'satTaxObjectDesc',
    'taxes',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    productId: { type: 'string' },
    merchantId: { type: 'string' },
    sku: { type: 'string' },
    description: { type: 'string' },
    unitPrice: { type: 'number' },
    satUnitKey: { type: 'string', description: 'c_ClaveUnidad' },
    satUnitDesc: { ...nullableText, description: "SAT's name of satUnitKey" },
    satProductServiceKey: { type: 'string', description: 'c_ClaveProdServ' },
    satProductServiceDesc: { ...nullableText, description: "SAT's name of satProductServiceKey" },
    satTaxObjectKey: { type: 'string', description: 'c_ObjetoImp' },
    satTaxObjectDesc: { ...nullableText, description: "SAT's name of satTaxObjectKey" },
    taxes: { type: 'array', items: productTaxSchema },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
} as const;
