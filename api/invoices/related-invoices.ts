import type { ErrorDetail } from '../../shared/platform/errors.js';
import { invoicePdfDataFromXml, type InvoicePdfData } from '../../shared/pdf/invoice-pdf-data.js';
import { findInvoiceByUuid, type InvoiceRow } from '../../shared/repositories/invoices.js';
import type { ApiDeps } from '../deps.js';
import type { InvoiceScope } from './cancel-invoice.js';

export interface RelatedInvoice {
  /** Position in the request's `related`. */
  index: number;
  uuid: string;
  row: InvoiceRow;
  /** The invoice as stamped (its XML). */
  data: InvoicePdfData;
}

/**
 * The stamped invoices a credit note or payment complement relates to, for these credentials; a UUID
 * listed twice or not found adds its field-level detail to `details`.
 */
export async function relatedInvoices(deps: ApiDeps, scope: InvoiceScope, uuids: string[], details: ErrorDetail[]): Promise<RelatedInvoice[]> {
  const seen = new Set<string>();
  const found: RelatedInvoice[] = [];
  for (const [index, given] of uuids.entries()) {
    const uuid = given.toUpperCase();
    if (seen.has(uuid)) details.push({ field: `related[${index}].uuid`, code: 'duplicate', message: `${uuid} is listed twice.` });
    seen.add(uuid);
    const row = await findInvoiceByUuid(deps.db, uuid, scope);
    const file = row?.xml_file_key ? await deps.files.get(row.xml_file_key) : undefined;
    if (!row || !file) {
      details.push({ field: `related[${index}].uuid`, code: 'not_found', message: `No stamped invoice with UUID ${uuid} for these credentials.` });
      continue;
    }
    found.push({ index, uuid, row, data: invoicePdfDataFromXml(file.data.toString('utf8'), deps.catalogs) });
  }
  return found;
}
