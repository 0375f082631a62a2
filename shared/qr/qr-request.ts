/**
 * The sale a point of sale sends (the body of POST /v1/qrs once validated), as the QR feature reads it.
 * Declared here because shared/ does not import the API; api/contract/qrs/qr-request-schema.ts proves at
 * compile time that its schema validates exactly this type. Money and quantities arrive as JSON numbers;
 * domain code reads them with `dec()`.
 */

export type TaxType = 'Traslado' | 'Retencion';
export type TaxFactor = 'Tasa' | 'Cuota' | 'Exento';
export type QrOperation = 'INVOICE' | 'PAYMENT' | 'REFUND';

export interface QrTaxInput {
  type: TaxType;
  tax: string;
  factor: TaxFactor;
  rate?: string;
  taxable_base: number;
  amount?: number;
}

/** A concept as sent: its SAT keys may be left out when `sku` names a product of the merchant's catalog. */
export interface QrConceptDraft {
  sku?: string;
  description: string;
  amount: number;
  quantity: number;
  discount?: number;
  unit_price: number;
  sat_unit_key?: string;
  sat_product_service_key?: string;
  sat_tax_object_key?: string;
  taxes?: QrTaxInput[];
}

export interface RelatedCfdis {
  tipo_relacion: string;
  cfdis: string[];
}

export interface GlobalInfo {
  periodicity: string;
  months: string;
  year: number;
}

/** The body as the schema validates it, before product keys are filled in (resolve-concept-keys.ts). */
export interface QrCreateDraft {
  store_uid: string;
  sale_id: string;
  operation: QrOperation;
  amount: number;
  subtotal: number;
  currency: string;
  exchange_rate?: number | null;
  sat_payment_method: string;
  sat_payment_form: string;
  expires_at: string;
  type_of_receipt: string;
  export_code: string;
  related_cfdis?: RelatedCfdis | null;
  global_info?: GlobalInfo | null;
  metadata?: Record<string, string> | null;
  /** The link of the ticket the POS printed while offline, when this sale catches it up (issue #33). */
  offline_ticket?: string;
  operation_data: QrConceptDraft[];
}

/** The SAT keys a concept may leave out when its `sku` names a product of the merchant's catalog. */
export type ConceptKeyField = 'sat_unit_key' | 'sat_product_service_key' | 'sat_tax_object_key';
/** A concept with its SAT keys, given or taken from the product catalog. */
export type QrConceptInput = QrConceptDraft & Required<Pick<QrConceptDraft, ConceptKeyField>>;
/** The body of POST /v1/qrs once every concept has its SAT keys. */
export type QrCreateRequest = Omit<QrCreateDraft, 'operation_data'> & { operation_data: QrConceptInput[] };
