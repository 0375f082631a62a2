/**
 * Several tickets in one CFDI (issue #17). Anexo 20 gives a CFDI one Moneda, TipoCambio, MetodoPago,
 * Exportacion and TipoDeComprobante, so tickets that differ in any of them cannot share one; a ticket that
 * carries its own CfdiRelacionados or InformacionGlobal is a document of its own. The concepts follow
 * ticket by ticket. FormaPago: with several forms of payment, Anexo 20's guide asks for the one with which
 * the greatest amount was paid.
 */
import { dec } from '../domain/money.js';
import type { QrTransactionRecord } from '../repositories/qr-transactions.js';

/** A company's monthly fuel tickets fit; beyond that, a page and a request body stop being reasonable. */
export const MAX_TICKETS_PER_INVOICE = 50;

export type TicketMismatchCode =
  | 'other_issuer'
  | 'other_mode'
  | 'currency_differs'
  | 'exchange_rate_differs'
  | 'payment_method_differs'
  | 'export_code_differs'
  | 'receipt_type_differs'
  | 'has_own_cfdi_nodes'
  | 'duplicate_ticket';

export interface TicketMismatch {
  /** Place in the list of tickets (0 is the first one). */
  index: number;
  code: TicketMismatchCode;
  message: string;
}

/** A ticket as combining sees it: its recorded sale, its issuer and key mode. */
export interface Ticket {
  record: QrTransactionRecord;
  issuerId: string;
}

/** Why each further ticket cannot join the first one in one CFDI (empty: they can). */
export function ticketMismatches(tickets: readonly Ticket[]): TicketMismatch[] {
  const [first, ...rest] = tickets;
  if (!first) return [];
  const a = first.record.transaction;
  const seen = new Set([a.id]);
  const out: TicketMismatch[] = [];
  const severalCfdiNodes = (t: Ticket) => t.record.transaction.related_cfdis !== null || t.record.transaction.global_info !== null;
  if (rest.length > 0 && severalCfdiNodes(first))
    out.push({ index: 0, code: 'has_own_cfdi_nodes', message: 'This ticket carries related CFDIs or global information: it is invoiced on its own.' });
  rest.forEach((ticket, i) => {
    const index = i + 1;
    const b = ticket.record.transaction;
    const mismatch = (code: TicketMismatchCode, message: string) => out.push({ index, code, message });
    if (seen.has(b.id)) return mismatch('duplicate_ticket', 'This ticket is already in the list.');
    seen.add(b.id);
    if (ticket.issuerId !== first.issuerId) return mismatch('other_issuer', `This ticket was issued by ${ticket.record.issuerName}, not by ${first.record.issuerName}.`);
    if (b.mode !== a.mode) return mismatch('other_mode', 'A test ticket and a live ticket cannot share an invoice.');
    if (b.currency !== a.currency) return mismatch('currency_differs', `This ticket is in ${b.currency}; the first one is in ${a.currency}.`);
    if ((b.exchange_rate === null ? null : dec(b.exchange_rate).toString()) !== (a.exchange_rate === null ? null : dec(a.exchange_rate).toString()))
      return mismatch('exchange_rate_differs', `This ticket's exchange rate is ${b.exchange_rate}; the first one's is ${a.exchange_rate}.`);
    if (b.sat_payment_method !== a.sat_payment_method)
      return mismatch('payment_method_differs', `This ticket is paid ${b.sat_payment_method}; the first one ${a.sat_payment_method}: an invoice has one payment method.`);
    if (b.export_code !== a.export_code) return mismatch('export_code_differs', `This ticket's export code is ${b.export_code}; the first one's is ${a.export_code}.`);
    if (b.type_of_receipt !== a.type_of_receipt) return mismatch('receipt_type_differs', `This ticket is of type ${b.type_of_receipt}; the first one is ${a.type_of_receipt}.`);
    if (severalCfdiNodes(ticket)) return mismatch('has_own_cfdi_nodes', 'This ticket carries related CFDIs or global information: it is invoiced on its own.');
  });
  return out;
}

/**
 * One sale of every ticket's concepts, in ticket order, under the first ticket's header; the payment form
 * is that of the ticket with the greatest amount (the first one on a tie). Call after ticketMismatches.
 */
export function combineTickets(records: readonly [QrTransactionRecord, ...QrTransactionRecord[]]): QrTransactionRecord {
  const [first] = records;
  if (records.length === 1) return first;
  const largest = records.reduce((best, r) => (dec(r.transaction.amount).gt(best.transaction.amount) ? r : best), first);
  let next = 0;
  const concepts: QrTransactionRecord['concepts'] = [];
  const taxes: QrTransactionRecord['taxes'] = [];
  for (const record of records) {
    const positions = new Map<number, number>();
    for (const concept of record.concepts) {
      positions.set(concept.position, next);
      concepts.push({ ...concept, transaction_id: first.transaction.id, position: next++ });
    }
    for (const tax of record.taxes) taxes.push({ ...tax, transaction_id: first.transaction.id, concept_position: positions.get(tax.concept_position)! });
  }
  const sum = (column: 'amount' | 'subtotal') => records.reduce((total, r) => total.plus(r.transaction[column]), dec(0)).toFixed(6);
  return {
    ...first,
    transaction: { ...first.transaction, sat_payment_form: largest.transaction.sat_payment_form, amount: sum('amount'), subtotal: sum('subtotal') },
    concepts,
    taxes,
  };
}
