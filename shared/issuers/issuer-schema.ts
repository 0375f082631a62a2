/** JSON Schemas of the issuer operations, used by ajv and by the OpenAPI document. */
import type { FromSchema } from 'json-schema-to-ts';
import { CFDI_TEXT } from '../sat/cfdi-text-rules.js';

export type CreateIssuerRequest = FromSchema<typeof createIssuerSchema>;

const issuerProperties = {
  groupId: { type: 'string', minLength: 1, maxLength: 100 },
  alias: { type: 'string', minLength: 1, maxLength: 100 },
  taxId: { type: 'string', minLength: 12, maxLength: 13 },
  // The idCIF printed on the tax-status certificate (CSF): 11 digits.
  idCif: { type: 'string', pattern: '^[0-9]{11}$' },
  // CFDI 4.0 Emisor/@Nombre: at most 254 characters.
  businessName: { type: 'string', 'x-cfdi-text': CFDI_TEXT.issuerName },
  email: { type: 'string', format: 'email', maxLength: 254 },
  zip: { type: 'string', pattern: '^[0-9]{5}$' },
  taxRegimeCode: { type: 'string', pattern: '^[0-9]{3}$' },
} as const;

export const createIssuerSchema = {
  $id: 'CreateIssuerRequest',
  type: 'object',
  additionalProperties: false,
  required: ['groupId', 'alias', 'taxId', 'idCif', 'businessName', 'email', 'zip', 'taxRegimeCode'],
  properties: issuerProperties,
} as const;

export type UpdateIssuerForm = FromSchema<typeof updateIssuerFormSchema>;

export const updateIssuerFormSchema = {
  $id: 'UpdateIssuerForm',
  type: 'object',
  additionalProperties: false,
  required: ['groupId', 'alias', 'email', 'taxRegimeCode'],
  properties: {
    groupId: issuerProperties.groupId,
    alias: issuerProperties.alias,
    email: issuerProperties.email,
    taxRegimeCode: issuerProperties.taxRegimeCode,
    status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
  },
} as const;

export const issuerSchema = {
  $id: 'Issuer',
  type: 'object',
  required: ['invoiceDataId', 'groupId', 'alias', 'taxId', 'idCif', 'businessName', 'email', 'zip', 'taxRegime', 'status'],
  properties: {
    invoiceDataId: { type: 'string' },
    groupId: { type: 'string' },
    alias: { type: 'string' },
    taxId: { type: 'string' },
    idCif: { type: 'string' },
    businessName: { type: 'string' },
    email: { type: 'string' },
    zip: { type: 'string' },
    taxRegime: { type: 'object', properties: { code: { type: 'string' }, description: { type: 'string' } } },
    invoiceLogoUrl: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
  },
} as const;
