import { toJsonNumber } from '../../../shared/domain/money.js';
import type { SatCatalogs } from '../../../shared/sat/catalogs.js';
import type { StoredQr } from '../../../shared/repositories/qr-transactions.js';
import { isStamped, type InvoiceRow } from '../../../shared/repositories/invoices.js';
import { customerView, invoiceView } from '../invoices/invoice-view.js';
import { qrContent, signQrToken } from '../../../shared/qr/qr-link.js';
import { formatShortCode } from '../../../shared/domain/qr-code/short-code.js';
import { renderQrPng } from '../../../shared/domain/qr-code/render-qr-png.js';
import { signedImageUrl } from '../../../shared/qr/signed-image-url.js';
import { saleTotals } from '../../../shared/qr/sale-totals.js';
import { totalsView } from '../invoices/totals-view.js';

/** Everything needed to turn a stored transaction into the spec's "QR transaction" object. */
export interface ViewContext {
  catalogs: SatCatalogs;
  publicBaseUrl: string;
  qrHmacKey: string;
  urlSigningKey: string;
}

function num(value: string | null): number | null {
  return value === null ? null : toJsonNumber(value);
}

/** A stored transaction's row with the names its view shows; ViewedQr adds its concepts and taxes (fixedViewParts reads them). */
export type ViewedQrHead = Pick<StoredQr, 'transaction'> & { storeName: string; issuerRfc: string; issuerName: string };
export type ViewedQr = StoredQr & ViewedQrHead;

/**
 * The parts of a transaction's view that follow from its immutable data alone: the signed link (from the
 * token), the signed image URL (id and expiry), the concepts with SAT's descriptions and the totals (the
 * concepts and taxes are never changed after the insert). GET /v1/qrs/{qrId} and replays keep them (api/qrs/stored-qr.ts).
 */
export function fixedViewParts(record: StoredQr, ctx: ViewContext) {
  const t = record.transaction;
  const desc = ctx.catalogs.description.bind(ctx.catalogs);
  const taxesOf = (position: number) => record.taxes.filter((x) => x.concept_position === position);
  return {
    qr_content: qrContent(ctx.publicBaseUrl, signQrToken(t.token, ctx.qrHmacKey)),
    qr_url: signedImageUrl(ctx.publicBaseUrl, t.id, t.expires_at, ctx.urlSigningKey),
    operation_data: record.concepts.map((c) => ({
      sku: c.sku,
      description: c.description,
      amount: toJsonNumber(c.amount),
      quantity: toJsonNumber(c.quantity),
      discount: num(c.discount),
      unit_price: toJsonNumber(c.unit_price),
      sat_unit_key: c.sat_unit_key,
      sat_unit_desc: desc('c_ClaveUnidad', c.sat_unit_key) ?? null,
      sat_product_service_key: c.sat_product_service_key,
      sat_product_service_desc: desc('c_ClaveProdServ', c.sat_product_service_key) ?? null,
      sat_tax_object_key: c.sat_tax_object_key,
      sat_tax_object_desc: desc('c_ObjetoImp', c.sat_tax_object_key) ?? null,
      taxes: taxesOf(c.position).map((x) => ({
        type: x.type,
        tax: x.tax,
        factor: x.factor,
        rate: x.rate,
        taxable_base: toJsonNumber(x.taxable_base),
        amount: num(x.amount),
      })),
    })),
    // Addition to the spec: what the invoice will say, with SAT's rounding at the currency's decimals; it
    // differs from amount and subtotal when the POS sent more decimals than the currency has.
    invoice_totals: totalsView(saleTotals(record, ctx.catalogs.currencyDecimals(t.currency) ?? 2)),
  };
}

export type FixedViewParts = ReturnType<typeof fixedViewParts>;

/**
 * The spec's QR transaction, identical for POST /v1/qrs (and its replays) and GET /v1/qrs/{qrId}; `fixed` is
 * fixedViewParts of its ViewedQr, made for it or kept (api/qrs/stored-qr.ts).
 */
export function qrTransactionView(record: ViewedQrHead, ctx: ViewContext, fixed: FixedViewParts, invoice?: InvoiceRow, globalInvoice?: InvoiceRow) {
  const stamped = isStamped(invoice) ? invoice : undefined;
  const t = record.transaction;
  const desc = ctx.catalogs.description.bind(ctx.catalogs);
  return {
    qr_id: t.id,
    store_uid: t.store_uid,
    store_name: record.storeName,
    sale_id: t.sale_id,
    idempotency_key: t.idempotency_key,
    operation: t.operation,
    issuer_rfc: record.issuerRfc,
    issuer_name: record.issuerName,
    amount: toJsonNumber(t.amount),
    subtotal: toJsonNumber(t.subtotal),
    currency: t.currency,
    exchange_rate: num(t.exchange_rate),
    sat_payment_method: t.sat_payment_method,
    sat_payment_method_desc: desc('c_MetodoPago', t.sat_payment_method) ?? null,
    sat_payment_form: t.sat_payment_form,
    sat_payment_form_desc: desc('c_FormaPago', t.sat_payment_form) ?? null,
    type_of_receipt: t.type_of_receipt,
    type_of_receipt_desc: desc('c_TipoDeComprobante', t.type_of_receipt) ?? null,
    export_code: t.export_code,
    export_code_desc: desc('c_Exportacion', t.export_code) ?? null,
    status: t.status,
    related_cfdis: t.related_cfdis,
    global_info: t.global_info,
    operation_data: fixed.operation_data,
    metadata: t.metadata,
    invoice_totals: fixed.invoice_totals,
    invoice: stamped ? invoiceView(stamped, ctx) : null,
    customer: stamped ? customerView(stamped) : null,
    qr_base64: `data:image/png;base64,${(t.qr_png ?? renderQrPng(fixed.qr_content)).toString('base64')}`,
    qr_url: fixed.qr_url,
    qr_content: fixed.qr_content,
    // Addition to the spec: print it under the QR; the buyer can type it at /q.
    short_code: t.short_code === null ? null : formatShortCode(t.short_code),
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
    scanned_at: t.scanned_at ? t.scanned_at.toISOString() : null,
    expires_at: t.expires_at.toISOString(),
    // Additions to the spec: the period an unclaimed sale is reported in (its close caps expires_at; then
    // expires_at_requested is what the POS asked for), and the global invoice that reported it.
    expires_at_requested: t.requested_expires_at ? t.requested_expires_at.toISOString() : null,
    global_period: t.global_period_end ? { periodicity: t.global_periodicity, closes_at: t.global_period_end.toISOString() } : null,
    global_invoice: t.global_invoice_id
      ? { status: globalInvoice?.status ?? 'STAMPING', uuid: globalInvoice?.uuid ?? null, series: globalInvoice?.series ?? null, folio: globalInvoice?.folio ?? null }
      : null,
    // Addition to the spec (issue #39): a sale caught up from an offline ticket, its moment of sale (the period it belongs to).
    sold_at: t.sold_at ? t.sold_at.toISOString() : null,
  };
}

export type QrTransactionView = ReturnType<typeof qrTransactionView>;
