/**
 * What a buyer (or a merchant's dry run) reviewed, as one short fingerprint: the tickets in their order with
 * their concepts, the customer's data and the totals that customer gets. Confirm carries it back; the service
 * recomputes it from what it would stamp now and refuses (409 review_outdated) when they differ, so no client
 * can confirm one total and receive another (issue #29).
 */
import { createHash } from 'node:crypto';
import type { DocumentTotals } from '../domain/cfdi/anexo20-amounts.js';
import { dec } from '../domain/money.js';
import type { QrTransactionRecord } from '../repositories/qr-transactions.js';
import type { Customer } from './customer.js';

export interface ReviewedConcept {
  description: string;
  quantity: string;
  unit_price: string;
  amount: string;
  discount: string | null;
  sat_product_service_key: string;
  sat_unit_key: string;
  taxes: readonly { type: string; tax: string; factor: string; rate: string | null; amount: string | null }[];
}

export interface ReviewedTicket {
  id: string;
  currency: string;
  concepts: readonly ReviewedConcept[];
}

export interface ReviewedInvoice {
  tickets: readonly ReviewedTicket[];
  customer: Customer;
  totals: DocumentTotals;
}

/** One number in one spelling: 11.6, "11.60" and "11.600000" are the same amount. */
function amount(value: string | null): string | null {
  return value === null ? null : dec(value).toFixed();
}

/** JSON with its object keys sorted: the same content always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A ticket as the digest sees it: its id, currency and concepts with their taxes, in order. */
export function reviewedTicket(record: QrTransactionRecord): ReviewedTicket {
  return {
    id: record.transaction.id,
    currency: record.transaction.currency,
    concepts: [...record.concepts]
      .sort((a, b) => a.position - b.position)
      .map((c) => ({
        description: c.description,
        quantity: c.quantity,
        unit_price: c.unit_price,
        amount: c.amount,
        discount: c.discount,
        sat_product_service_key: c.sat_product_service_key,
        sat_unit_key: c.sat_unit_key,
        taxes: record.taxes
          .filter((t) => t.concept_position === c.position)
          .sort((a, b) => a.position - b.position)
          .map((t) => ({ type: t.type, tax: t.tax, factor: t.factor, rate: t.rate, amount: t.amount })),
      })),
  };
}

/** The fingerprint (SHA-256, base64url) of a reviewed invoice; a pure function of its content. */
export function reviewDigest(invoice: ReviewedInvoice): string {
  const { customer, totals } = invoice;
  const content = {
    tickets: invoice.tickets.map((t) => ({
      id: t.id,
      currency: t.currency,
      concepts: t.concepts.map((c) => ({
        ...c,
        quantity: amount(c.quantity),
        unit_price: amount(c.unit_price),
        amount: amount(c.amount),
        discount: amount(c.discount),
        taxes: c.taxes.map((x) => ({ ...x, rate: amount(x.rate), amount: amount(x.amount) })),
      })),
    })),
    customer: {
      rfc: customer.rfc,
      name: customer.name,
      tax_regime: customer.tax_regime,
      postal_code: customer.postal_code,
      cfdi_use: customer.cfdi_use,
      email: customer.email,
      tax_residence: customer.tax_residence ?? null,
    },
    totals: {
      subtotal: totals.subtotal.toFixed(),
      discount: totals.discount.toFixed(),
      transferred: totals.transferred.toFixed(),
      withheld: totals.withheld.toFixed(),
      total: totals.total.toFixed(),
    },
  };
  return createHash('sha256')
    .update(canonical({ version: 1, ...content }))
    .digest('base64url');
}

/** The digest of what stamping these tickets (in this order) for this customer gives. */
export function saleReviewDigest(records: readonly QrTransactionRecord[], customer: Customer, totals: DocumentTotals): string {
  return reviewDigest({ tickets: records.map(reviewedTicket), customer, totals });
}
