/**
 * What a books request asks for (issue #32): whose rows (an API key's merchant, or the bearer account's
 * merchants or one of them), the filters with the dates resolved to instants in the request's time zone,
 * and the page. Every malformed value is a 400 `validation_failed` naming the parameter.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { isIanaTimeZone, nextDay, zonedDayStart } from '../../shared/domain/time-zone.js';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { CURSOR_PAGE, decodeCursor, type CursorSigning, type Keyset } from '../../shared/platform/keyset-cursor.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { accountMerchantIds, type BooksScope, type CreatedRange, type InvoiceFilters, type QrFilters } from '../../shared/repositories/books.js';
import { merchantNotFound } from '../account-resources.js';
import { invoiceExportQuerySchema, invoiceListQuerySchema, invoiceSummaryQuerySchema, qrListQuerySchema } from '../contract/books/books-query-schema.js';
import { invoiceExportRequestSchema } from '../contract/books/export-schema.js';
import type { ApiKeyOrBearerGrant } from '../access/access-rules.js';
import type { ApiDeps } from '../deps.js';

export const DEFAULT_BOOKS_TIME_ZONE = 'America/Mexico_City';

const validateQrQuery = validator(qrListQuerySchema);
const validateInvoiceQuery = validator(invoiceListQuerySchema);
const validateExportQuery = validator(invoiceExportQuerySchema);
const validateSummaryQuery = validator(invoiceSummaryQuerySchema);
const validateZipRequest = validator(invoiceExportRequestSchema);

type QrQuery = FromSchema<typeof qrListQuerySchema>;
type InvoiceQuery = FromSchema<typeof invoiceListQuerySchema>;
type ExportQuery = FromSchema<typeof invoiceExportQuerySchema>;
type SummaryQuery = FromSchema<typeof invoiceSummaryQuerySchema>;
type ZipRequest = FromSchema<typeof invoiceExportRequestSchema>;

export interface PageAsked {
  after: Keyset | undefined;
  size: number;
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details });
}

/** The years a books date may name: a CFDI 4.0 exists from 2022; far-off years are typos, and 9999-12-31's next day is no date at all. */
const BOOKS_YEARS = { first: 1970, last: 2999 } as const;

function isCalendarDate(date: string): boolean {
  const at = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === date;
}

function isBooksDate(date: string): boolean {
  const year = Number(date.slice(0, 4));
  return isCalendarDate(date) && year >= BOOKS_YEARS.first && year <= BOOKS_YEARS.last;
}

/** created_from / created_to (inclusive days) as [from, to) instants on the clocks of time_zone. */
function period(
  query: { created_from?: string; created_to?: string; time_zone?: string },
  names: Record<'created_from' | 'created_to', string> = { created_from: 'created_from', created_to: 'created_to' },
): CreatedRange {
  const zone = query.time_zone ?? DEFAULT_BOOKS_TIME_ZONE;
  const details: ErrorDetail[] = [];
  if (!isIanaTimeZone(zone)) details.push({ field: 'time_zone', code: 'invalid_value', message: 'time_zone must be an IANA time zone, e.g. America/Mexico_City.' });
  for (const field of ['created_from', 'created_to'] as const) {
    const value = query[field];
    if (value !== undefined && !isCalendarDate(value)) details.push({ field: names[field], code: 'invalid_format', message: `${names[field]} must be a date YYYY-MM-DD.` });
    else if (value !== undefined && !isBooksDate(value)) {
      details.push({ field: names[field], code: 'out_of_range', message: `${names[field]} must be a date from ${BOOKS_YEARS.first} to ${BOOKS_YEARS.last}.` });
    }
  }
  if (details.length === 0 && query.created_from && query.created_to && query.created_from > query.created_to) {
    details.push({ field: names.created_to, code: 'out_of_range', message: `${names.created_to} must not be before ${names.created_from}.` });
  }
  if (details.length > 0) throw invalid(details);
  return {
    ...(query.created_from ? { from: zonedDayStart(query.created_from, zone) } : {}),
    ...(query.created_to ? { to: zonedDayStart(nextDay(query.created_to), zone) } : {}),
  };
}

function page(query: { cursor?: string; size?: string }, signing: CursorSigning): PageAsked {
  const size = query.size === undefined ? CURSOR_PAGE.size : Number(query.size);
  if (!Number.isInteger(size) || size < 1 || size > CURSOR_PAGE.maxSize) {
    throw invalid([{ field: 'size', code: 'out_of_range', message: `size must be an integer from 1 to ${CURSOR_PAGE.maxSize}.` }]);
  }
  return { after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, signing), size };
}

const statuses = (value: string | undefined) => (value === undefined ? undefined : [...new Set(value.split(','))]);

/** An API key reads its own merchant (in its mode); a bearer token its account's merchants, or the one named. */
export async function booksScope(deps: Pick<ApiDeps, 'db'>, ctx: { state: ApiKeyOrBearerGrant }, merchantId: string | undefined): Promise<BooksScope> {
  const { state } = ctx;
  if (state.apiKey) {
    const key = state.apiKey;
    if (merchantId !== undefined && merchantId !== key.merchantId) throw merchantNotFound(merchantId);
    return { merchantIds: [key.merchantId], mode: key.mode };
  }
  const merchantIds = await accountMerchantIds(deps.db, state.accountId, merchantId);
  if (merchantId !== undefined && merchantIds.length === 0) throw merchantNotFound(merchantId);
  return { merchantIds };
}

/** `cursorKey`: the key the list's cursors are signed with (URL_SIGNING_KEY). */
export function qrListRequest(rawQuery: unknown, cursorKey: string): { query: QrQuery; filters: QrFilters; page: PageAsked } {
  const query = validateQrQuery(rawQuery);
  const filters: QrFilters = {
    ...period(query),
    ...(query.status ? { statuses: statuses(query.status) } : {}),
    ...(query.store_uid ? { storeUid: query.store_uid } : {}),
    ...(query.sale_id ? { saleId: query.sale_id } : {}),
    ...(query.global_invoice_uuid ? { globalInvoiceUuid: query.global_invoice_uuid } : {}),
  };
  return { query, filters, page: page(query, { list: 'qrs', key: cursorKey }) };
}

function invoiceFilters(query: InvoiceQuery | ExportQuery | ZipRequest): InvoiceFilters {
  return {
    ...period(query),
    ...(query.status ? { statuses: statuses(query.status) } : {}),
    ...(query.cfdi_type ? { cfdiType: query.cfdi_type } : {}),
    ...(query.receptor_rfc ? { receptorRfc: query.receptor_rfc.toUpperCase() } : {}),
    ...(query.uuid ? { uuid: query.uuid } : {}),
    ...(query.series ? { series: query.series } : {}),
    ...(query.folio ? { folio: query.folio } : {}),
    ...(query.store_uid ? { storeUid: query.store_uid } : {}),
    ...(query.sale_id ? { saleId: query.sale_id } : {}),
  };
}

export function invoiceListRequest(rawQuery: unknown, cursorKey: string): { query: InvoiceQuery; filters: InvoiceFilters; page: PageAsked } {
  const query = validateInvoiceQuery(rawQuery);
  return { query, filters: invoiceFilters(query), page: page(query, { list: 'invoices', key: cursorKey }) };
}

/** The stamped states: what an export holds unless `status` asks otherwise (STAMPING and REFUSED issued no CFDI). */
export const EXPORTED_BY_DEFAULT = ['ACTIVE', 'CANCELLING', 'CANCELLATION_PENDING', 'CANCELLATION_REJECTED', 'CANCELLED'];

export function invoiceExportRequest(rawQuery: unknown): { query: ExportQuery; filters: InvoiceFilters } {
  const query = validateExportQuery(rawQuery);
  const filters = invoiceFilters(query);
  return { query, filters: { ...filters, statuses: filters.statuses ?? EXPORTED_BY_DEFAULT } };
}

/** The longest period a summary adds up, in days. */
export const SUMMARY_MAX_DAYS = 366;

/** A summary's period: `from` and `to` (inclusive days) as [from, to) instants on the clocks of time_zone. */
export function invoiceSummaryRequest(rawQuery: unknown): { query: SummaryQuery; from: Date; to: Date; timeZone: string } {
  const query = validateSummaryQuery(rawQuery);
  const range = period({ created_from: query.from, created_to: query.to, ...(query.time_zone ? { time_zone: query.time_zone } : {}) }, { created_from: 'from', created_to: 'to' });
  const days = (Date.parse(`${query.to}T00:00:00Z`) - Date.parse(`${query.from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > SUMMARY_MAX_DAYS) throw invalid([{ field: 'to', code: 'out_of_range', message: `The period may span at most ${SUMMARY_MAX_DAYS} days.` }]);
  return { query, from: range.from!, to: range.to!, timeZone: query.time_zone ?? DEFAULT_BOOKS_TIME_ZONE };
}

/** POST /v1/qrs/invoices/exports: the export's filters (the CSV export's, in a JSON body) and whether PDFs go in. */
export function zipExportRequest(rawBody: unknown): { body: ZipRequest; filters: InvoiceFilters } {
  const body = validateZipRequest(rawBody ?? {});
  const filters = invoiceFilters(body);
  return { body, filters: { ...filters, statuses: filters.statuses ?? EXPORTED_BY_DEFAULT } };
}
