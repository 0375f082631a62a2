import type { QrTransactionView } from '../qrs/qr-transaction-view.js';

/** 201 of POST /api/v1/qrs: the five fields the earlier contract answered, from the current view. */
export function legacyCreatedView(view: QrTransactionView) {
  return { qr_base64: view.qr_base64, qr_url: view.qr_url, qr_content: view.qr_content, created_at: view.created_at, expires_at: view.expires_at };
}

/** 200 of GET /api/v1/qrs: the earlier resolve shape, where `sat_payment_method` is the payment form. */
export function legacyResolvedView(view: QrTransactionView) {
  return {
    id: view.qr_id,
    store: view.store_uid,
    issuer_rfc: view.issuer_rfc,
    issuer_name: view.issuer_name,
    amount: view.amount,
    subtotal: view.subtotal,
    currency: view.currency,
    sat_payment_method: view.sat_payment_form,
    sat_payment_method_desc: view.sat_payment_form_desc,
    created_at: view.created_at,
    expires_at: view.expires_at,
    operation: view.operation,
    operation_data: view.operation_data.map((c) => ({
      sku: c.sku,
      description: c.description,
      quantity: c.quantity,
      unit_price: c.unit_price,
      amount: c.amount,
      sat_unit_key: c.sat_unit_key,
      sat_unit_desc: c.sat_unit_desc,
      sat_product_service_key: c.sat_product_service_key,
      sat_product_service_desc: c.sat_product_service_desc,
      sat_tax_object_key: c.sat_tax_object_key,
      sat_tax_object_desc: c.sat_tax_object_desc,
      taxes: c.taxes,
    })),
  };
}
