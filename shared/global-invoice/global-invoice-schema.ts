import type { FromSchema } from 'json-schema-to-ts';
import { GLOBAL_PERIODICITIES } from './global-period.js';

/** PUT /v1/qrs/issuers/{issuerId}/global-periodicity. */
export const globalPeriodicityRequestSchema = {
  $id: 'GlobalPeriodicityRequest',
  type: 'object',
  additionalProperties: false,
  required: ['periodicity'],
  properties: {
    periodicity: {
      type: 'string',
      enum: [...GLOBAL_PERIODICITIES],
      description: 'c_Periodicidad: 01 daily, 02 weekly, 03 fortnightly, 04 monthly (the default). Applies to QRs created from now on.',
    },
  },
} as const;

/** POST /v1/qrs/issuers/{issuerId}/global-invoices (the body is optional). */
export const reportGlobalRequestSchema = {
  $id: 'GlobalInvoiceRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    date: {
      type: 'string',
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
      description: 'A day (central Mexico) of the period to report; absent: every closed period with unclaimed sales.',
    },
  },
} as const;

export type ReportGlobalRequest = FromSchema<typeof reportGlobalRequestSchema>;
