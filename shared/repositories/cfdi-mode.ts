import type { Knex } from 'knex';
import { keyMonths } from './qr-transactions.js';

/**
 * The mode (an API key's development or production) of a CFDI, which has none of its own (issue #39): a ticket
 * invoice has its first ticket's, a global invoice its sales', a credit note or payment complement that of the
 * first invoice it relates to. An API key's books read only the CFDIs of its mode, as its QR lists do.
 * Each lookup is one primary-key or index probe (qr_transactions_global_invoice_idx, the allocations' keys); a
 * ticket's sale in the month its id names, or the legacy partition (pruned at run time: two probes, not one a month).
 */
const salesMode = (invoice: string): string =>
  `COALESCE((SELECT q.mode FROM qr_transactions q WHERE q.id = ${invoice}.transaction_id
      AND ${keyMonths('id', `${invoice}.transaction_id`)('q.created_at')}),
    (SELECT q.mode FROM qr_transactions q WHERE q.global_invoice_id = ${invoice}.id AND q.merchant_id = ${invoice}.merchant_id LIMIT 1))`;

const cfdiMode = (x: string): string =>
  `COALESCE(${salesMode(x)},
    (SELECT ${salesMode('r')} FROM invoices r WHERE r.id = (
      SELECT a.invoice_id FROM credit_allocations a WHERE a.credit_note_id = ${x}.id
      UNION ALL SELECT a.invoice_id FROM payment_allocations a WHERE a.payment_complement_id = ${x}.id LIMIT 1)))`;

/** `alias` (a row of invoices) is a CFDI of `mode`; none when no mode is asked (a bearer token reads every mode). */
export function cfdiOfMode(alias: string, mode: string | undefined): { sql: string; bindings: Knex.Value[] } | undefined {
  return mode === undefined ? undefined : { sql: `${cfdiMode(alias)} = ?`, bindings: [mode] };
}
