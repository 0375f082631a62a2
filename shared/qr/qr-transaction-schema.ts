/**
 * JSON Schema of the spec's QR transaction as the API answers it (shared/qr/qr-transaction-view.ts):
 * POST /v1/qrs 201 and GET /v1/qrs/{qrId} 200. In the OpenAPI document as `QrTransaction`; a test validates
 * real answers against it, so the document cannot promise a field the view does not give.
 */
const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const num = { type: 'number' } as const;
const nullableNum = { type: ['number', 'null'] } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

const taxView = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tax', 'factor', 'rate', 'taxable_base', 'amount'],
  properties: { type: { enum: ['Traslado', 'Retencion'] }, tax: str, factor: { enum: ['Tasa', 'Cuota', 'Exento'] }, rate: nullableStr, taxable_base: num, amount: nullableNum },
} as const;

const conceptView = {
  type: 'object',
  additionalProperties: false,
  required: ['sku', 'description', 'amount', 'quantity', 'discount', 'unit_price', 'sat_unit_key', 'sat_unit_desc', 'sat_product_service_key',
    'sat_product_service_desc', 'sat_tax_object_key', 'sat_tax_object_desc', 'taxes'],
  properties: {
    sku: nullableStr, description: str, amount: num, quantity: num, discount: nullableNum, unit_price: num,
    sat_unit_key: str, sat_unit_desc: nullableStr, sat_product_service_key: str, sat_product_service_desc: nullableStr,
    sat_tax_object_key: str, sat_tax_object_desc: nullableStr, taxes: { type: 'array', items: taxView },
  },
} as const;

const totalsView = {
  type: 'object',
  additionalProperties: false,
  required: ['subtotal', 'discount', 'transferred_taxes', 'withheld_taxes', 'total'],
  properties: { subtotal: num, discount: num, transferred_taxes: num, withheld_taxes: num, total: num },
  description: 'What the invoice will say, with SAT\'s rounding at the currency\'s decimals (before withholdings that depend on the buyer).',
} as const;

export const qrTransactionSchema = {
  $id: 'QrTransaction',
  type: 'object',
  additionalProperties: false,
  required: ['qr_id', 'store_uid', 'store_name', 'sale_id', 'idempotency_key', 'operation', 'issuer_rfc', 'issuer_name', 'amount', 'subtotal', 'currency',
    'exchange_rate', 'sat_payment_method', 'sat_payment_method_desc', 'sat_payment_form', 'sat_payment_form_desc', 'type_of_receipt', 'type_of_receipt_desc',
    'export_code', 'export_code_desc', 'status', 'related_cfdis', 'global_info', 'operation_data', 'metadata', 'invoice_totals', 'invoice', 'customer',
    'qr_base64', 'qr_url', 'qr_content', 'short_code', 'created_at', 'updated_at', 'scanned_at', 'expires_at', 'expires_at_requested', 'global_period', 'global_invoice'],
  properties: {
    qr_id: str, store_uid: str, store_name: str, sale_id: str, idempotency_key: str, operation: { enum: ['INVOICE', 'PAYMENT', 'REFUND'] },
    issuer_rfc: str, issuer_name: str, amount: num, subtotal: num, currency: str, exchange_rate: nullableNum,
    sat_payment_method: str, sat_payment_method_desc: nullableStr, sat_payment_form: str, sat_payment_form_desc: nullableStr,
    type_of_receipt: str, type_of_receipt_desc: nullableStr, export_code: str, export_code_desc: nullableStr,
    status: { enum: ['PENDING', 'SCANNED', 'INVOICED', 'EXPIRED', 'CANCELLED'] },
    related_cfdis: { type: ['object', 'null'] }, global_info: { type: ['object', 'null'] },
    operation_data: { type: 'array', items: conceptView },
    metadata: { type: ['object', 'null'], additionalProperties: str },
    invoice_totals: totalsView,
    invoice: {
      anyOf: [{ type: 'null' }, {
        type: 'object', additionalProperties: false, required: ['uuid', 'status', 'series', 'folio', 'total', 'subtotal', 'issued_at', 'xml_url', 'pdf_url'],
        properties: { uuid: str, status: str, series: nullableStr, folio: str, total: num, subtotal: num, issued_at: dateTime, xml_url: str, pdf_url: str },
      }],
    },
    customer: {
      anyOf: [{ type: 'null' }, {
        type: 'object', additionalProperties: false, required: ['rfc', 'name', 'tax_regime', 'postal_code'],
        properties: { rfc: str, name: str, tax_regime: str, postal_code: str },
      }],
    },
    qr_base64: { type: 'string', pattern: '^data:image/png;base64,' }, qr_url: str, qr_content: str, short_code: nullableStr,
    created_at: dateTime, updated_at: dateTime, scanned_at: { type: ['string', 'null'], format: 'date-time' }, expires_at: dateTime,
    expires_at_requested: { type: ['string', 'null'], format: 'date-time' },
    global_period: { type: ['object', 'null'] },
    global_invoice: { type: ['object', 'null'] },
  },
} as const;
