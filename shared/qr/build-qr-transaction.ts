import { capExpiry, globalPeriod } from '../global-invoice/global-period.js';
import { toFixed6 } from '../domain/money.js';
import type { ApiKeyPrincipal } from '../repositories/api-keys.js';
import type { QrConceptRow, QrConceptTaxRow, QrTransactionRecord } from '../repositories/qr-transactions.js';
import type { QrCreateRequest } from './qr-request.js';

export interface BuildQrInput {
  request: QrCreateRequest;
  qrId: string;
  token: string;
  shortCode: string;
  png: Buffer;
  principal: ApiKeyPrincipal;
  idempotencyKey: string;
  timeZone: string;
  issuedLocal: string;
  now: Date;
  /** The offline ticket this sale catches up (issue #33). */
  offline?: { keyId: string; soldAt: Date };
}

/**
 * The rows of a new QR transaction, written exactly as PostgreSQL will return them
 * (numeric(15,6) as 6-decimal text) so the 201 answer equals every later read.
 */
export function buildQrTransactionRecord(input: BuildQrInput): Omit<QrTransactionRecord, 'storeName' | 'issuerRfc' | 'issuerName'> {
  const { request: r, qrId } = input;
  // A sale belongs to the period it was made in: a ticket printed offline, to the moment of sale (issue #39).
  const period = globalPeriod(input.offline?.soldAt ?? input.now, input.principal.globalPeriodicity);
  // One that arrives after that period closed is claimable until the period it arrived in closes; unclaimed, it
  // is then reported late in a further global invoice of its own period (SAT takes a global invoice of a past
  // period: InformacionGlobal's Año back five years).
  const claimable = period.end.getTime() > input.now.getTime() ? period : globalPeriod(input.now, input.principal.globalPeriodicity);
  const expiry = capExpiry(new Date(r.expires_at), claimable);
  const concepts: QrConceptRow[] = [];
  const taxes: QrConceptTaxRow[] = [];
  r.operation_data.forEach((c, position) => {
    concepts.push({
      transaction_id: qrId,
      position,
      sku: c.sku ?? null,
      description: c.description,
      amount: toFixed6(c.amount),
      quantity: toFixed6(c.quantity),
      discount: c.discount === undefined ? null : toFixed6(c.discount),
      unit_price: toFixed6(c.unit_price),
      sat_unit_key: c.sat_unit_key,
      sat_product_service_key: c.sat_product_service_key,
      sat_tax_object_key: c.sat_tax_object_key,
    });
    (c.taxes ?? []).forEach((t, taxPosition) => {
      taxes.push({
        transaction_id: qrId,
        concept_position: position,
        position: taxPosition,
        type: t.type,
        tax: t.tax,
        factor: t.factor,
        rate: t.rate ?? null,
        taxable_base: toFixed6(t.taxable_base),
        amount: t.amount === undefined ? null : toFixed6(t.amount),
      });
    });
  });
  return {
    transaction: {
      id: qrId,
      merchant_id: input.principal.merchantId,
      mode: input.principal.mode,
      store_uid: r.store_uid,
      sale_id: r.sale_id,
      idempotency_key: input.idempotencyKey,
      operation: r.operation,
      amount: toFixed6(r.amount),
      subtotal: toFixed6(r.subtotal),
      currency: r.currency,
      exchange_rate: r.exchange_rate === undefined || r.exchange_rate === null ? null : toFixed6(r.exchange_rate),
      sat_payment_method: r.sat_payment_method,
      sat_payment_form: r.sat_payment_form,
      type_of_receipt: r.type_of_receipt,
      export_code: r.export_code,
      status: 'PENDING',
      related_cfdis: r.related_cfdis ?? null,
      global_info: r.global_info ?? null,
      metadata: r.metadata ?? null,
      token: input.token,
      short_code: input.shortCode,
      time_zone: input.timeZone,
      issued_local: input.issuedLocal,
      qr_png: input.png,
      created_at: input.now,
      updated_at: input.now,
      scanned_at: null,
      confirmed_at: null,
      expires_at: expiry.expiresAt,
      global_periodicity: period.periodicity,
      global_period_end: period.end,
      requested_expires_at: expiry.capped ? new Date(r.expires_at) : null,
      global_invoice_id: null,
      offline_key_id: input.offline?.keyId ?? null,
      sold_at: input.offline?.soldAt ?? null,
    },
    concepts,
    taxes,
  };
}
