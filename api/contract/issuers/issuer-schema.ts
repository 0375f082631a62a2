/** JSON Schemas of the issuer operations, used by ajv and by the OpenAPI document. */
import type { FromSchema } from 'json-schema-to-ts';
import { SYNC_STATUSES } from '../../../shared/issuers/sync-status.js';
import { GLOBAL_PERIODICITIES } from '../../../shared/global-invoice/global-period.js';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';

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

const syncStatus = { type: 'string', enum: SYNC_STATUSES } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** The spec's Issuer as the API answers it (issuer-view.ts builds it). */
export const issuerSchema = {
  $id: 'Issuer',
  type: 'object',
  additionalProperties: false,
  required: [
    'invoiceDataId',
    'groupId',
    'alias',
    'taxId',
    'idCif',
    'businessName',
    'email',
    'zip',
    'taxRegime',
    'invoiceLogoUrl',
    'status',
    'globalPeriodicity',
    'synchronization',
  ],
  properties: {
    invoiceDataId: { type: 'string', description: '`inv_data_…` (the `issuerId` of paths and merchants)' },
    groupId: { type: 'string' },
    alias: { type: 'string' },
    taxId: { type: 'string', description: 'RFC' },
    idCif: { type: 'string', description: 'idCIF of the tax-status certificate (CSF)' },
    businessName: { type: 'string' },
    email: { type: 'string' },
    zip: { type: 'string', description: 'Postal code of the fiscal address' },
    taxRegime: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'description'],
      properties: { code: { type: 'string', description: 'c_RegimenFiscal' }, description: { type: 'string' } },
    },
    invoiceLogoUrl: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
    globalPeriodicity: { type: 'string', enum: [...GLOBAL_PERIODICITIES], description: 'Addition to the spec: c_Periodicidad of its global invoice for unclaimed sales' },
    synchronization: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'jobId', 'attempts', 'error', 'requestedAt', 'finishedAt'],
          properties: {
            status: syncStatus,
            jobId: { type: ['string', 'null'] },
            attempts: { type: 'integer', minimum: 0 },
            error: { type: ['string', 'null'] },
            requestedAt: nullableDateTime,
            finishedAt: nullableDateTime,
          },
        },
      ],
      description: 'Addition to the spec: the last CSF synchronization; null until one is requested',
    },
  },
} as const;

/** POST /v1/qrs/issuers/{issuerId}/synchronize 202: the synchronization accepted, or the one already waiting or running. */
export const issuerSyncAcceptedSchema = {
  $id: 'IssuerSyncAccepted',
  type: 'object',
  additionalProperties: false,
  required: ['issuerId', 'jobId', 'status', 'requestedAt'],
  properties: { issuerId: { type: 'string' }, jobId: { type: 'string' }, status: syncStatus, requestedAt: nullableDateTime },
} as const;
