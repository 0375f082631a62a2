/**
 * One row per CFDI of a period's export (issue #32), as CSV or JSON lines: what an accountant reconciles,
 * read from the sealed document itself (shared/domain/cfdi/accounting-facts.ts) so the figures are the CFDI's
 * to the cent, beside what only the service knows (status, cancellation date, the sales it covers).
 */
import { ACCOUNTING_TAXES, accountingFacts, type AccountingTaxColumn } from '../domain/cfdi/accounting-facts.js';
import { decimalText } from '../domain/money.js';
import { withUtcOffset } from '../domain/time-zone.js';
import type { InvoiceExportRow } from '../repositories/books.js';

export const EXPORT_COLUMNS = [
  'issued_at',
  'uuid',
  'series',
  'folio',
  'serie_folio',
  'cfdi_type',
  'kind',
  'status',
  'receptor_rfc',
  'receptor_name',
  'cfdi_use',
  'payment_form',
  'payment_method',
  'currency',
  'exchange_rate',
  'subtotal',
  'discount',
  ...ACCOUNTING_TAXES.map((t) => t.column),
  'total',
  'payments_total',
  'stamped_at',
  'cancelled_at',
  'related_uuids',
  'sale_ids',
  'global_tickets',
  'merchant_id',
  'created_at',
] as const;

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];

/** A row's values: text (money as decimal text), lists for the related CFDIs and the sales; null when absent. */
export type ExportRecord = Record<Exclude<ExportColumn, 'related_uuids' | 'sale_ids'>, string | null> & {
  related_uuids: { type: string; uuid: string }[];
  sale_ids: string[];
};

export function exportRecord(row: InvoiceExportRow): ExportRecord {
  const facts = row.sealed_xml ? accountingFacts(row.sealed_xml) : undefined;
  const money = (value: string | null) => (value === null ? null : decimalText(value));
  const taxes = Object.fromEntries(ACCOUNTING_TAXES.map((t) => [t.column, facts ? facts.taxes[t.column] : null])) as Record<AccountingTaxColumn, string | null>;
  return {
    // The CFDI's Fecha as written, with the offset of the clock it is written on (the columns beside it are UTC).
    issued_at: facts ? (row.time_zone ? withUtcOffset(facts.date, row.time_zone) : facts.date) : null,
    uuid: row.uuid,
    series: row.series,
    folio: row.folio,
    serie_folio: `${row.series ?? ''}${row.folio}`,
    cfdi_type: row.cfdi_type,
    kind: row.kind,
    status: row.status,
    receptor_rfc: facts?.receptorRfc ?? row.receptor_rfc,
    receptor_name: facts?.receptorName ?? row.receptor_name,
    cfdi_use: facts?.cfdiUse ?? null,
    payment_form: facts?.paymentForm ?? null,
    payment_method: facts?.paymentMethod ?? null,
    currency: facts?.currency ?? null,
    exchange_rate: facts?.exchangeRate ?? null,
    subtotal: facts?.subtotal ?? money(row.subtotal),
    discount: facts ? facts.discount : money(row.discount),
    ...taxes,
    total: facts?.total ?? money(row.total),
    payments_total: facts?.paymentsTotal ?? null,
    stamped_at: row.stamped_at?.toISOString() ?? null,
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
    related_uuids: facts?.related ?? [],
    sale_ids: row.sale_ids,
    global_tickets: row.global_tickets === null ? null : String(row.global_tickets),
    merchant_id: row.merchant_id,
    created_at: row.created_at.toISOString(),
  };
}

/** Where a spreadsheet may start a cell inside our field: its start, and after a `;` or tab (the separators of locales whose decimal mark is the comma) or a line break. */
const CELL_STARTS = /(^|[;\t\r\n])([=+\-@\t\r])/g;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. A text starting
 * with = + - @ (or a tab or CR) is a formula to a spreadsheet: it gets a leading apostrophe (OWASP's CSV
 * injection advice), unless it is a plain number such as "-1.50". So does each such start after a `;`, tab
 * or line break inside the field (`X;=1+1` would reach a `;`-splitting spreadsheet as a formula cell).
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const text = /^[+-]?\d+(\.\d+)?$/.test(value) ? value : value.replace(CELL_STARTS, "$1'$2");
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV's first bytes: the UTF-8 byte order mark, so Excel on Windows reads `ESPAÑOLA`, not `ESPAÃ'OLA`. */
export const CSV_BOM = '\uFEFF';

/** A CSV line of the columns, CRLF-terminated as RFC 4180 has it. */
export function csvLine(values: readonly (string | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

export const CSV_HEADER = csvLine(EXPORT_COLUMNS);

export function csvRow(record: ExportRecord): string {
  return csvLine(
    EXPORT_COLUMNS.map((column) => {
      if (column === 'related_uuids') return record.related_uuids.map((r) => `${r.type}:${r.uuid}`).join(' ');
      if (column === 'sale_ids') return record.sale_ids.join(' ');
      return record[column];
    }),
  );
}

export function jsonLine(record: ExportRecord): string {
  return `${JSON.stringify(record)}\n`;
}
