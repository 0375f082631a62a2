import type { FromSchema } from 'json-schema-to-ts';
import type { IssuerRow } from '../../../shared/repositories/issuers.js';
import type { SatCatalogs } from '../../../shared/sat/catalogs.js';
import type { issuerSchema } from './issuer-schema.js';

// Typed from the schema the OpenAPI document publishes: the compiler holds the view to it.
export type Issuer = FromSchema<typeof issuerSchema>;

/** The spec's Issuer. */
export function issuerView(row: IssuerRow, catalogs: SatCatalogs): Issuer {
  return {
    invoiceDataId: row.id,
    groupId: row.group_id,
    alias: row.alias,
    taxId: row.rfc,
    idCif: row.id_cif,
    businessName: row.business_name,
    email: row.email,
    zip: row.zip,
    taxRegime: { code: row.tax_regime_code, description: catalogs.description('c_RegimenFiscal', row.tax_regime_code) ?? '' },
    invoiceLogoUrl: row.invoice_logo_url,
    status: row.status,
    // Not in the spec's Issuer: the c_Periodicidad of its global invoice for unclaimed sales.
    globalPeriodicity: row.global_periodicity,
    // Not in the spec's Issuer: the last CSF synchronization, null until one is requested.
    synchronization:
      row.sync_status === null
        ? null
        : {
            status: row.sync_status,
            jobId: row.sync_job_id,
            attempts: row.sync_attempts,
            error: row.sync_error,
            requestedAt: row.sync_requested_at?.toISOString() ?? null,
            finishedAt: row.sync_finished_at?.toISOString() ?? null,
          },
  };
}
