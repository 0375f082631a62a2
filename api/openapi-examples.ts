/**
 * Examples for the OpenAPI document, by component schema name: one story (the development account's issuer
 * EKU9003173C9, its store dev-store-1, a sale of a liter of water), so the reference reads as one integration.
 * withExamples() puts them on every request and answer that names the schema; every error answer gets one
 * built from its status and description. The dates a request example carries are relative to the day the
 * document is served (an expiry a few days ahead, last month's global period, a payment received today), so a
 * copied sample stays accepted. Tests validate each example against its schema and send every request example
 * to the API.
 */
import { localDateTime } from '../shared/domain/time-zone.js';

const BASE = 'https://factura.example.com';
const QR_ID = 'tra_Jd2kQ7bq3s8hWm0xLr5NvA';
/** A preview's fingerprint (shared/invoices/review-digest.ts: SHA-256, base64url). */
const REVIEW_DIGEST = 'mB7c1vQ2Zr4kXy9LpT0sWq8eNd3aHf6uJg5iKo2RtYc';
const MERCHANT_ID = 'mer_8cN1uV4pXy2Qw7Ls0Hk3Zg';
const ISSUER_ID = 'inv_data_5Tg9Rb2Lm6Xc1Vn8Qw4Pk';
const GROUP_ID = 'grp_3Hs7Kd1Fp9Wq5Zx2Mb6Ny';
const UUID = '5f2c8a3e-7b1d-4e6f-9a0c-2d4b6e8f1a3c';
const CREATED = '2026-03-14T17:30:00.000Z';
const EXPIRES = '2026-03-19T23:59:59.000Z';
const STAMPED = '2026-03-14T18:02:11.000Z';
const fileUrl = (uuid: string, kind: string) => `${BASE}/v1/public/invoices/${uuid}.${kind}?exp=1773968399&sig=q9V1c2XbT0m4L7sR8aYdPw`;
const QR_CONTENT = `${BASE}/q?v=1&t=Xk3v9QmT2bLs7YpR0wNcHg&m=Zt4q8LrV1mWs`;

const tax = { type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 100, amount: 16 };
const concept = {
  sku: 'AGUA-1L',
  description: 'Agua 1 L',
  amount: 100,
  quantity: 1,
  discount: null,
  unit_price: 100,
  sat_unit_key: 'H87',
  sat_unit_desc: 'Pieza',
  sat_product_service_key: '50202301',
  sat_product_service_desc: 'Agua potable',
  sat_tax_object_key: '02',
  sat_tax_object_desc: 'Sí objeto de impuesto.',
  taxes: [tax],
};
const totals = { subtotal: 100, discount: 0, transferred_taxes: 16, withheld_taxes: 0, total: 116 };
const invoice = {
  uuid: UUID,
  status: 'ACTIVE',
  series: 'A',
  folio: '1024',
  total: 116,
  subtotal: 100,
  issued_at: STAMPED,
  xml_url: fileUrl(UUID, 'xml'),
  pdf_url: fileUrl(UUID, 'pdf'),
};
const customer = { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', tax_regime: '601', postal_code: '86991' };
const address = {
  street: 'Av. Insurgentes Sur',
  exteriorNumber: '1602',
  interiorNumber: null,
  neighborhood: 'Crédito Constructor',
  city: 'Ciudad de México',
  state: 'CDMX',
  zipCode: '03940',
};
const merchant = {
  merchantId: MERCHANT_ID,
  externalMerchantId: 'dev-store-1',
  issuerId: ISSUER_ID,
  merchantName: 'Tienda Centro',
  billingProfile: 'GENERAL',
  billingProfileData: null,
  contactEmail: 'ayuda@tienda.example',
  contactPhoneNumber: '+52 55 1234 5678',
  invoiceLogoUrl: null,
  invoiceLogoFileName: null,
  appLogoUrl: null,
  appLogoFileName: null,
  logoAnimation: 'NONE',
  address,
  status: 'ACTIVE',
  invoiceRules: { allowGenericRfc: false, allowedCfdiUses: null, resicoWithholding: true },
};
const issuer = {
  invoiceDataId: ISSUER_ID,
  groupId: GROUP_ID,
  alias: 'Kemper',
  taxId: 'EKU9003173C9',
  idCif: '19010123456',
  businessName: 'ESCUELA KEMPER URGATE',
  email: 'facturas@kemper.example',
  zip: '42501',
  taxRegime: { code: '601', description: 'General de Ley Personas Morales' },
  invoiceLogoUrl: null,
  status: 'ACTIVE',
  globalPeriodicity: '04',
  synchronization: null,
};
const product = {
  productId: 'prd_2Wq8Lx5Nc1Vb7Mz4Kd9Hs',
  merchantId: MERCHANT_ID,
  sku: 'AGUA-1L',
  description: 'Agua 1 L',
  unitPrice: 100,
  satUnitKey: 'H87',
  satUnitDesc: 'Pieza',
  satProductServiceKey: '50202301',
  satProductServiceDesc: 'Agua potable',
  satTaxObjectKey: '02',
  satTaxObjectDesc: 'Sí objeto de impuesto.',
  taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000' }],
  createdAt: CREATED,
  updatedAt: CREATED,
};
const globalInvoice = {
  id: 'cfd_7Rt2Ym9Kb4Xn1Qs6Lw3Pv',
  status: 'STAMPING',
  uuid: null,
  series: 'G',
  folio: '12',
  merchant_id: MERCHANT_ID,
  periodicity: '04',
  period_start: '2026-02-01T06:00:00.000Z',
  period_end: '2026-03-01T06:00:00.000Z',
  sat_payment_form: '01',
  sat_payment_method: 'PUE',
  part: 1,
  tickets: 418,
  total: 48_720.5,
  error: null,
  xml_url: null,
  pdf_url: null,
};
const endpoint = {
  id: 'whe_4Kp8Qz1Lm7Xc3Vb9Nd2Hs',
  url: 'https://pos.example.com/webhooks/factura',
  events: ['invoice.stamped', 'invoice.cancelled'],
  description: 'POS back office',
  created_at: CREATED,
};
const page = (content: unknown[]) => ({ content, totalElements: content.length, totalPages: 1, number: 0, size: 20 });
const { xml_url: _xml, pdf_url: _pdf, ...buyerInvoice } = invoice;
const confirmation = { status: 'ACTIVE', error: null, invoice: buyerInvoice };
const DAY_MS = 86_400_000;
/** The last second (UTC) of the day `days` after `now`'s: a QR expiry the API accepts (at most 31 days ahead). */
const endOfDayAhead = (now: Date, days: number) => new Date((Math.floor(now.getTime() / DAY_MS) + days + 1) * DAY_MS - 1000).toISOString();
/** The 15th of the month before `now`'s: a day of a global period that has closed whatever the periodicity. */
const dayOfLastMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)).toISOString().slice(0, 10);

const qrRequest = {
  store_uid: 'dev-store-1',
  sale_id: 'A-10231',
  operation: 'INVOICE',
  amount: 116,
  subtotal: 100,
  currency: 'MXN',
  sat_payment_method: 'PUE',
  sat_payment_form: '04',
  type_of_receipt: 'I',
  export_code: '01',
  operation_data: [
    {
      sku: 'AGUA-1L',
      description: 'Agua 1 L',
      quantity: 1,
      unit_price: 100,
      amount: 100,
      sat_unit_key: 'H87',
      sat_product_service_key: '50202301',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 100, amount: 16 }],
    },
  ],
  metadata: { ticket: 'T-000418' },
};

/** One ticket of several in one invoice. */
function ticket(shortCode: string | null) {
  return {
    short_code: shortCode,
    store_name: 'Tienda Centro',
    issued_at: '2026-03-02T09:41:12',
    sat_payment_form: '04',
    amount: 116,
    currency: 'MXN',
    operation_data: [{ description: 'Agua 1 L', quantity: 1, amount: 100 }],
  };
}

/** A request body per component schema, for a document served at `now`. */
export const requestExamples = (now: Date): Record<string, unknown> => ({
  QrCreateRequest: { ...qrRequest, expires_at: endOfDayAhead(now, 5) },
  CreateOfflineKeyRequest: { windowHours: 72, currency: 'MXN' },
  RevokeOfflineKeyRequest: { graceHours: 24 },
  InvoiceExportRequest: { created_from: '2026-11-01', created_to: '2026-11-30', time_zone: 'America/Mexico_City', include_pdf: false },
  TokenRequest: { grant_type: 'client_credentials', client_id: 'cli_6Vb2Nm8Xq4Lz1Kw7Hd3Ps', client_secret: 'cs_Qm9Xv2Lb7Nc4Kz1Wd8Hs3Pt6Yr0Tg5Jf' },
  CreateIssuerRequest: {
    groupId: GROUP_ID,
    alias: 'Kemper',
    taxId: 'EKU9003173C9',
    idCif: '19010123456',
    businessName: 'ESCUELA KEMPER URGATE',
    email: 'facturas@kemper.example',
    zip: '42501',
    taxRegimeCode: '601',
  },
  CreateMerchantRequest: {
    issuerId: ISSUER_ID,
    merchantName: 'Tienda Centro',
    billingProfile: 'GENERAL',
    contactEmail: 'ayuda@tienda.example',
    contactPhoneNumber: '+52 55 1234 5678',
    address,
  },
  UpdateMerchantRequest: { contactPhoneNumber: '+52 55 8765 4321', invoiceRules: { allowGenericRfc: true } },
  CreateMerchantProductRequest: [
    {
      sku: 'AGUA-1L',
      description: 'Agua 1 L',
      unitPrice: 100,
      satUnitKey: 'H87',
      satProductServiceKey: '50202301',
      satTaxObjectKey: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000' }],
    },
  ],
  UpdateMerchantProductRequest: { unitPrice: 105.5 },
  PreviewQrRequest: {
    v: '1',
    t: 'Xk3v9QmT2bLs7YpR0wNcHg',
    m: 'Zt4q8LrV1mWs',
    customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' },
  },
  OfflineClaimRequest: {
    v: '2',
    k: 'q7Xv2Lb9Nc',
    w: 'tjdq8l',
    a: '116',
    s: 'T-0042',
    m: 'Hd8Ps3Tg6Yr0Jf5QcVb7Nm',
    customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' },
  },
  ConfirmQrRequest: {
    v: '1',
    t: 'Xk3v9QmT2bLs7YpR0wNcHg',
    m: 'Zt4q8LrV1mWs',
    customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' },
    review_digest: REVIEW_DIGEST,
  },
  ReviewTicketsRequest: { v: '1', t: 'Xk3v9QmT2bLs7YpR0wNcHg', m: 'Zt4q8LrV1mWs', additional_tickets: ['7KQ4M-XR2PA', 'K7QXM-3PA9T'] },
  InvoiceQrsRequest: {
    qr_ids: [QR_ID, 'tra_Mx8pQ2vL4nB7kZ1wR3dT6s'],
    customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' },
    dry_run: true,
  },
  EmailInvoiceRequest: { v: '1', t: 'Xk3v9QmT2bLs7YpR0wNcHg', m: 'Zt4q8LrV1mWs', email: 'contabilidad@robotica.example', rfc: 'URE180429TM6' },
  CancelInvoiceRequest: { motive: '02' },
  // Forms (api/openapi-forms.ts): a file part by the name of the file sent; the CSD is SAT's test CSD in data/sat/test-csd.
  CsdUploadForm: {
    'csdDataRequest.cerFile': 'EKU9003173C9.cer',
    'csdDataRequest.keyFile': 'EKU9003173C9.key',
    'csdDataRequest.password': '12345678a',
    'csdDataRequest.serialNumberPrefix': 'A',
  },
  MerchantLogosForm: { invoiceLogo: 'logo-factura.png', appLogo: 'logo-app.png', logoAnimation: 'BOUNCE' },
  IssuerUpdateForm: { groupId: GROUP_ID, alias: 'Kemper', email: 'facturas@kemper.example', taxRegimeCode: '601', status: 'ACTIVE', logo: 'logo-factura.png' },
  CsfUploadForm: { document: 'CSF_URE180429TM6.pdf' },
  BuyerInvoiceFilesRequest: { v: '1', t: 'Xk3v9QmT2bLs7YpR0wNcHg', m: 'Zt4q8LrV1mWs', rfc: 'URE180429TM6' },
  WebhookEndpointRequest: { url: endpoint.url, events: endpoint.events, description: endpoint.description },
  GlobalPeriodicityRequest: { periodicity: '04' },
  GlobalInvoiceRequest: { date: dayOfLastMonth(now) },
  CreditNoteRequest: { related: [{ uuid: UUID, amount: 58 }], sat_payment_form: '04', sat_payment_method: 'PUE', description: 'Devolución de mercancía' },
  PaymentComplementRequest: {
    // A date alone (SAT's 12:00:00): today in the sale's time zone is neither in the future nor before today's invoices.
    payment: { date: localDateTime(now, 'America/Mexico_City').slice(0, 10), sat_payment_form: '03', currency: 'MXN', amount: 58 },
    related: [{ uuid: UUID, amount_paid: 58 }],
  },
  LegacyQrCreateRequest: {
    store: 'dev-store-1',
    issuer_rfc: 'EKU9003173C9',
    amount: 116,
    subtotal: 100,
    currency: 'MXN',
    sat_payment_method: '04',
    expires_at: endOfDayAhead(now, 5),
    operation: 'INVOICE',
    operation_data: qrRequest.operation_data,
  },
});

/** An answer per component schema. */
const offlineKey = {
  keyId: 'q7Xv2Lb9Nc',
  merchantId: MERCHANT_ID,
  status: 'ACTIVE',
  windowHours: 72,
  currency: 'MXN',
  createdAt: CREATED,
  revokedAt: null,
  oldTicketsUntil: null,
  replacedBy: null,
};

const qrSummary = {
  qr_id: QR_ID,
  merchant_id: MERCHANT_ID,
  mode: 'development',
  store_uid: 'tienda-centro',
  sale_id: 'T-0042',
  operation: 'INVOICE',
  status: 'INVOICED',
  amount: '116.00',
  subtotal: '100.00',
  currency: 'MXN',
  created_at: CREATED,
  expires_at: '2026-03-19T23:59:59.000Z',
  scanned_at: '2026-03-14T17:41:12.000Z',
  invoice: { uuid: UUID, status: 'ACTIVE' },
  global_invoice_uuid: null,
  sold_at: null,
};
const invoiceSummary = {
  id: 'inv_Pq2Wd8Hs1Lm5Nv7Bx3Kc9Z',
  merchant_id: MERCHANT_ID,
  kind: 'invoice',
  cfdi_type: 'I',
  status: 'ACTIVE',
  uuid: UUID,
  series: 'A',
  folio: '1042',
  receptor: { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA' },
  subtotal: '100.00',
  discount: null,
  total: '116.00',
  created_at: '2026-03-14T17:42:03.000Z',
  stamped_at: '2026-03-14T17:42:05.000Z',
  sales: [{ qr_id: QR_ID, store_uid: 'tienda-centro', sale_id: 'T-0042' }],
  global_tickets: null,
};

const noTaxes = { iva_transferred: '0.00', ieps_transferred: '0.00', isr_withheld: '0.00', iva_withheld: '0.00', ieps_withheld: '0.00' };
const periodSummary = {
  period: { from: '2026-03-01', to: '2026-03-31', time_zone: 'America/Mexico_City' },
  items: [
    {
      merchant_id: MERCHANT_ID,
      merchant_name: 'Tienda Centro',
      issuer: { id: 'iss_Hx4Qm9Vt2Lb7Nc1Kz8Wd3P', rfc: 'EKU9003173C9' },
      sales: [
        {
          currency: 'MXN',
          recorded: { count: 5, total: '580.00' },
          invoiced: { count: 3, total: '348.00' },
          global_invoice: { count: 1, total: '116.00' },
          expired_unclaimed: { count: 1, total: '116.00' },
          cancelled: { count: 0, total: '0.00' },
          open: { count: 0, total: '0.00' },
        },
      ],
      cfdis: [
        { cfdi_type: 'I', cancelled: false, currency: 'MXN', count: 2, subtotal: '300.00', discount: '0.00', taxes: { ...noTaxes, iva_transferred: '48.00' }, total: '348.00' },
        { cfdi_type: 'E', cancelled: false, currency: 'MXN', count: 1, subtotal: '50.00', discount: '0.00', taxes: { ...noTaxes, iva_transferred: '8.00' }, total: '58.00' },
      ],
      credit_notes: [{ invoice_id: 'inv_Pq2Wd8Hs1Lm5Nv7Bx3Kc9Z', invoice_uuid: UUID, invoice_total: '116.00', documents: 1, amount: '58.00', amount_all: '58.00' }],
      payment_complements: [],
      differences: [
        {
          code: 'sale_not_reported',
          message: 'Sale T-0043 was neither invoiced nor reported in a global invoice, and its period has closed.',
          qr_id: 'tra_Lm7Xb4Nc1Kz8Wd3Hs6Pt9Q',
          sale_id: 'T-0043',
        },
      ],
      differences_total: 1,
    },
  ],
};

/** An export as its creation answers it: recorded, its job not started yet (its declaration in api/routes/books.ts names it). */
export const PENDING_EXPORT_EXAMPLE = {
  export_id: 'exp_4Hs8Wd2Kz9Nc6Pt3Xb7Lm1',
  status: 'PENDING',
  include_pdf: false,
  merchant_ids: ['mer_7Lm1Xb4Nc9Kz2Wd6Hs3Pt8'],
  files_done: 0,
  files_total: null,
  size_bytes: null,
  created_at: '2026-12-01T15:02:11.000Z',
  finished_at: null,
  expires_at: '2026-12-08T15:02:11.000Z',
  download_url: null,
  download_expires_at: null,
  period: { from: '2026-11-01T06:00:00.000Z', to: '2026-12-01T06:00:00.000Z' },
  filters: {
    status: ['ACTIVE', 'CANCELLING', 'CANCELLATION_PENDING', 'CANCELLATION_REJECTED', 'CANCELLED'],
    cfdi_type: null,
    receptor_rfc: null,
    uuid: null,
    series: null,
    folio: null,
    store_uid: null,
    sale_id: null,
  },
};

export const RESPONSE_EXAMPLES: Record<string, unknown> = {
  QrSummaryPage: { content: [qrSummary], size: 20, next_cursor: 'eyJ0IjoiMjAyNi0wMy0xNFQxNzozMDowMC4wMDBaIiwiaSI6InRyYV9YazN2OVFtVDJiTHM3WXBSMHdOY0hnIn0' },
  InvoiceSummaryPage: { content: [invoiceSummary], size: 20, next_cursor: null },
  PeriodSummary: periodSummary,
  InvoiceExport: {
    export_id: 'exp_4Hs8Wd2Kz9Nc6Pt3Xb7Lm1',
    status: 'READY',
    include_pdf: false,
    merchant_ids: ['mer_7Lm1Xb4Nc9Kz2Wd6Hs3Pt8'],
    files_done: 1842,
    files_total: 1842,
    size_bytes: 4187345,
    created_at: '2026-12-01T15:02:11.000Z',
    finished_at: '2026-12-01T15:02:49.000Z',
    expires_at: '2026-12-08T15:02:11.000Z',
    download_url: 'https://facturas.example.com/v1/public/exports/exp_4Hs8Wd2Kz9Nc6Pt3Xb7Lm1.zip?exp=1796142169&sig=N2tY7cK1pQ9xV4mB8zR3sA',
    download_expires_at: '2026-12-01T16:02:49.000Z',
    period: PENDING_EXPORT_EXAMPLE.period,
    filters: PENDING_EXPORT_EXAMPLE.filters,
  },
  InvoiceExportList: { content: [PENDING_EXPORT_EXAMPLE] },
  TokenResponse: { access_token: 'tok_9Qv2Lm7Xb4Nc1Kz8Wd3Hs6Pt', token_type: 'Bearer', expires_in: 3600 },
  QrTransaction: {
    qr_id: QR_ID,
    store_uid: 'dev-store-1',
    store_name: 'Tienda Centro',
    sale_id: 'A-10231',
    idempotency_key: '0b7e3f52-9c4a-4d1e-8f6b-2a5c7d9e1f30',
    operation: 'INVOICE',
    issuer_rfc: 'EKU9003173C9',
    issuer_name: 'ESCUELA KEMPER URGATE',
    amount: 116,
    subtotal: 100,
    currency: 'MXN',
    exchange_rate: null,
    sat_payment_method: 'PUE',
    sat_payment_method_desc: 'Pago en una sola exhibición',
    sat_payment_form: '04',
    sat_payment_form_desc: 'Tarjeta de crédito',
    type_of_receipt: 'I',
    type_of_receipt_desc: 'Ingreso',
    export_code: '01',
    export_code_desc: 'No aplica',
    status: 'PENDING',
    related_cfdis: null,
    global_info: null,
    operation_data: [concept],
    metadata: { ticket: 'T-000418' },
    invoice_totals: totals,
    invoice: null,
    customer: null,
    qr_base64: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAMgAAADIAQAAAACFI5MzAAAA…',
    qr_url: `${BASE}/v1/public/qrs/images/${QR_ID}.png?exp=1773964799&sig=Hq2Lm8Xv4Nb1Kc7Zw3Ds9P`,
    qr_content: QR_CONTENT,
    short_code: 'K7QM-2XRP9A',
    created_at: CREATED,
    updated_at: CREATED,
    scanned_at: null,
    expires_at: EXPIRES,
    expires_at_requested: null,
    global_period: { periodicity: '04', closes_at: '2026-04-01T06:00:00.000Z' },
    global_invoice: null,
    sold_at: null,
  },
  Issuer: issuer,
  IssuerPage: page([issuer]),
  IssuerSyncAccepted: { issuerId: ISSUER_ID, jobId: `sync-issuer.${ISSUER_ID}.a1b2c3d4e5f6`, status: 'PENDING', requestedAt: CREATED },
  Merchant: merchant,
  MerchantCreated: { ...merchant, apiKey: 'sk_test_Vb7Nm2Xq9Lz4Kw1Hd8Ps3Tg6Yr0Jf5Qc' },
  MerchantSummary: { merchantId: MERCHANT_ID, merchantName: 'Tienda Centro', city: 'Ciudad de México', state: 'CDMX', invoiceLogoUrl: null, appLogoUrl: null, status: 'ACTIVE' },
  MerchantSummaryPage: page([
    { merchantId: MERCHANT_ID, merchantName: 'Tienda Centro', city: 'Ciudad de México', state: 'CDMX', invoiceLogoUrl: null, appLogoUrl: null, status: 'ACTIVE' },
  ]),
  InvoiceModeResponse: {
    merchantId: MERCHANT_ID,
    invoiceType: 'SERVICE',
    csdDataRequest: { cerFileName: 'EKU9003173C9.cer', keyFileName: 'EKU9003173C9.key', serialNumberPrefix: 'A', businessCode: null },
    apiDataRequest: null,
    certificate: { number: '30001000000500003416', rfc: 'EKU9003173C9', validFrom: '2023-05-18T11:43:51.000Z', validTo: '2027-05-18T11:43:51.000Z', mode: 'development' },
  },
  RegeneratedApiKey: { merchantId: MERCHANT_ID, apiKey: 'sk_test_Lz4Kw1Hd8Ps3Tg6Yr0Jf5QcVb7Nm2Xq9', mode: 'development' },
  OfflineKey: offlineKey,
  OfflineClaimList: {
    content: [
      {
        keyId: 'q7Xv2Lb9Nc',
        saleId: 'T-0042',
        amount: '116.000000',
        soldAt: CREATED,
        closesAt: '2026-03-17T17:30:00.000Z',
        status: 'WAITING',
        refusal: null,
        claimedAt: '2026-03-14T17:35:10.000Z',
        invoiceId: null,
      },
    ],
  },
  OfflineKeyCreated: { ...offlineKey, offlineKey: 'afok_q7Xv2Lb9Nc.Hd8Ps3Tg6Yr0Jf5QcVb7Nm2Xq9Lz4Kw1Hd8Ps3Tg6Yr', linkBaseUrl: 'https://factura.example.com' },
  OfflineKeyList: {
    content: [
      offlineKey,
      {
        ...offlineKey,
        keyId: 'Zk3Wd8Hs1P',
        status: 'REVOKED',
        createdAt: '2026-10-01T15:00:00.000Z',
        revokedAt: CREATED,
        oldTicketsUntil: '2026-11-24T16:30:00.000Z',
        replacedBy: 'q7Xv2Lb9Nc',
      },
    ],
  },
  MerchantProductResponse: product,
  MerchantProductList: [product],
  MerchantProductPage: page([product]),
  InvoiceXmlResponse: { uuid: UUID, file_name: `${UUID}.xml`, content_type: 'application/xml', content: 'PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4…' },
  InvoicePdfResponse: { uuid: UUID, file_name: `${UUID}.pdf`, content_type: 'application/pdf', content: 'JVBERi0xLjMKJf////8KOCAwIG9iago…' },
  InvoiceCancellation: {
    uuid: UUID,
    invoice_status: 'CANCELLING',
    status: 'REQUESTED',
    motive: '02',
    substitution_uuid: null,
    acceptance: 'NOT_REQUIRED',
    acceptance_reason: 'amount_up_to_1000',
    sat_status: null,
    requested_at: '2026-03-15T16:00:00.000Z',
    resolved_at: null,
    acuse_available: false,
    refusal: null,
    attention: null,
  },
  CreditNote: {
    id: 'cfd_1Lm7Xb4Nc9Kz2Wd8Hs3Pt6',
    type: 'E',
    status: 'STAMPING',
    uuid: null,
    series: 'NC',
    folio: '31',
    related: [{ uuid: UUID, amount: 58 }],
    total: 58,
    issued_at: null,
    error: null,
    xml_url: null,
    pdf_url: null,
  },
  PaymentComplement: {
    id: 'cfd_8Hs3Pt6Lm7Xb4Nc9Kz2Wd1',
    type: 'P',
    status: 'STAMPING',
    uuid: null,
    series: 'P',
    folio: '7',
    payment: { date: '2026-04-02T10:30:00', sat_payment_form: '03', currency: 'MXN', exchange_rate: null, amount: 58, operation_number: null },
    related: [{ uuid: UUID, installment: 1, previous_balance: 116, amount_paid: 58, remaining_balance: 58 }],
    issued_at: null,
    error: null,
    xml_url: null,
    pdf_url: null,
  },
  GlobalInvoice: globalInvoice,
  GlobalInvoiceList: { items: [globalInvoice] },
  GlobalInvoicePage: page([globalInvoice]),
  WebhookEndpoint: { ...endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  WebhookEndpointList: { items: [endpoint] },
  WebhookDelivery: {
    id: 'whd_6Pt3Hs8Wd2Kz9Nc4Xb7Lm1',
    event_id: 'evt_2Kz9Nc4Xb7Lm1Pt3Hs8Wd6',
    event_type: 'invoice.stamped',
    status: 'DELIVERED',
    attempts: 1,
    last_status_code: 200,
    last_error: null,
    last_attempt_at: STAMPED,
    delivered_at: STAMPED,
    created_at: STAMPED,
  },
  WebhookDeliveryPage: page([
    {
      id: 'whd_6Pt3Hs8Wd2Kz9Nc4Xb7Lm1',
      event_id: 'evt_2Kz9Nc4Xb7Lm1Pt3Hs8Wd6',
      event_type: 'invoice.stamped',
      status: 'DELIVERED',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      last_attempt_at: STAMPED,
      delivered_at: STAMPED,
      created_at: STAMPED,
    },
  ]),
  BuyerSale: {
    status: 'SCANNED',
    expires_at: EXPIRES,
    scanned_at: '2026-03-14T17:41:05.000Z',
    merchant: { name: 'Tienda Centro', app_logo_url: null, logo_animation: 'NONE', support: { email: 'ayuda@tienda.example', phone: '+52 55 1234 5678' } },
    issuer: { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE' },
    currency: 'MXN',
    exchange_rate: null,
    sat_payment_method: 'PUE',
    sat_payment_method_desc: 'Pago en una sola exhibición',
    sat_payment_form: '04',
    sat_payment_form_desc: 'Tarjeta de crédito',
    operation_data: [Object.fromEntries(Object.entries(concept).filter(([k]) => k !== 'sku'))],
    totals,
    confirmation: null,
  },
  BuyerConfirmation: { status: 'STAMPING', error: null, invoice: null },
  BuyerPreview: { customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' }, totals, warnings: [], tickets: [ticket(null)], review_digest: REVIEW_DIGEST },
  TicketsReview: { tickets: [ticket(null), ticket('7KQ4M-XR2PA')], totals: { subtotal: 200, discount: 0, transferred_taxes: 32, withheld_taxes: 0, total: 232 } },
  InvoiceQrsDryRun: {
    dry_run: true,
    qr_ids: [QR_ID, 'tra_Mx8pQ2vL4nB7kZ1wR3dT6s'],
    tickets: [ticket('K7QXM-3PA9T'), ticket('7KQ4M-XR2PA')],
    customer: { ...customer, cfdi_use: 'G03', email: 'compras@robotica.example' },
    totals: { subtotal: 200, discount: 0, transferred_taxes: 32, withheld_taxes: 0, total: 232 },
    warnings: [],
    review_digest: REVIEW_DIGEST,
  },
  InvoiceQrsAccepted: {
    qr_ids: [QR_ID, 'tra_Mx8pQ2vL4nB7kZ1wR3dT6s'],
    tickets: [ticket('K7QXM-3PA9T'), ticket('7KQ4M-XR2PA')],
    status: 'STAMPING',
    error: null,
    invoice: null,
  },
  BuyerQrStatus: { status: 'INVOICED', expires_at: EXPIRES, confirmation },
  EmailQueued: { status: 'QUEUED', to: 'c•••@robotica.example' },
  OfflineClaim: {
    claim_token: 'oct_Jd2bqkL0Tn8sVYwq1e3RfHx7cUoM9aPz',
    status: 'WAITING',
    store_name: 'Tienda Centro',
    sale_id: 'T-0042',
    amount: '116.000000',
    sold_at: CREATED,
    email: 'c•••@robotica.example',
    refusal: null,
  },
  BuyerInvoiceFiles: { uuid: UUID, issued_at: STAMPED, xml_url: fileUrl(UUID, 'xml'), pdf_url: fileUrl(UUID, 'pdf'), links_expire_at: '2026-03-20T01:06:39.000Z' },
  QrLink: { qr_content: QR_CONTENT },
  CsfPrefill: {
    rfc: 'URE180429TM6',
    name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
    postal_code: '86991',
    status: 'ACTIVO',
    tax_regimes: [{ code: '601', description: 'General de Ley Personas Morales' }],
    read_from: 'qr',
  },
  LegacyQrCreated: {
    qr_base64: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAMgAAADIAQAAAACFI5MzAAAA…',
    qr_url: `${BASE}/v1/public/qrs/images/${QR_ID}.png?exp=1773964799&sig=Hq2Lm8Xv4Nb1Kc7Zw3Ds9P`,
    qr_content: QR_CONTENT,
    created_at: CREATED,
    expires_at: EXPIRES,
  },
  LegacyQrResolved: {
    id: QR_ID,
    store: 'dev-store-1',
    issuer_rfc: 'EKU9003173C9',
    issuer_name: 'ESCUELA KEMPER URGATE',
    amount: 116,
    subtotal: 100,
    currency: 'MXN',
    sat_payment_method: '04',
    sat_payment_method_desc: 'Tarjeta de crédito',
    created_at: CREATED,
    expires_at: EXPIRES,
    operation: 'INVOICE',
    operation_data: [Object.fromEntries(Object.entries(concept).filter(([k]) => k !== 'discount'))],
  },
  Health: {
    status: 'ok',
    postgres: { ok: true, latency_ms: 0.84 },
    redis: { ok: true, latency_ms: 0.31 },
    queues: { render: { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 1204 }, stamp: { waiting: 2, active: 1, delayed: 0, failed: 0, completed: 388 } },
  },
  ServiceLinks: { service: 'autofactura-qr', docs: '/docs', openapi: '/openapi.json', health: '/health' },
};

// The error code an answer names first in its description (`code` or code: …), else the usual one for its status.
const DEFAULT_ERROR_CODE: Record<string, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'invalid_signature',
  404: 'not_found',
  410: 'qr_expired',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'rule_violation',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** An example of the error object for one documented error answer. */
export function errorExample(status: string, description: string) {
  const named = /^`?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?(?=[:,) ]|$)/.exec(description)?.[1];
  const details = status === '400' ? [{ field: 'operation_data[0].quantity', code: 'out_of_range', message: 'operation_data[0].quantity must be > 0.' }] : [];
  return { error: { code: named ?? DEFAULT_ERROR_CODE[status] ?? 'error', message: description, details, request_id: 'req_gE6nb9tx31iXPSHS' } };
}

interface MediaType {
  schema?: { $ref?: string };
  example?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}

const schemaName = (media: MediaType) => media.schema?.$ref?.replace('#/components/schemas/', '');

/** Every JSON request and answer naming a schema gets its example, unless the document gives one. */
export function withExamples<D extends { paths: Record<string, Record<string, unknown>> }>(doc: D, now: Date): D {
  const REQUEST_EXAMPLES = requestExamples(now);
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Operation[]) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        const name = schemaName(media);
        if (name && media.example === undefined && name in REQUEST_EXAMPLES) media.example = REQUEST_EXAMPLES[name];
      }
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        const name = media && schemaName(media);
        if (!media || !name || media.example !== undefined) continue;
        if (name === 'Error') media.example = errorExample(status, response.description);
        else if (name in RESPONSE_EXAMPLES) media.example = RESPONSE_EXAMPLES[name];
      }
    }
  }
  return doc;
}
