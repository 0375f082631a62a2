/**
 * The body of POST /v1/qrs after schema validation (see qr-request-schema.ts).
 * Money and quantities arrive as JSON numbers; domain code reads them with `dec()`.
 */
export type TaxType = 'Traslado' | 'Retencion';
export type TaxFactor = 'Tasa' | 'Cuota' | 'Exento';
export type QrOperation = 'INVOICE' | 'PAYMENT' | 'REFUND';

export interface QrTaxInput {
  type: TaxType;
  /** c_Impuesto key: 001 ISR, 002 IVA, 003 IEPS */
  tax: string;
  factor: TaxFactor;
  /** six-decimal text, e.g. "0.160000"; absent for factor Exento */
  rate?: string;
  taxable_base: number;
  /** absent (or 0) for factor Exento */
  amount?: number;
}

export interface QrConceptInput {
  sku?: string;
  description: string;
  amount: number;
  quantity: number;
  discount?: number;
  unit_price: number;
  sat_unit_key: string;
  sat_product_service_key: string;
  sat_tax_object_key: string;
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

export interface QrCreateRequest {
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
  operation_data: QrConceptInput[];
}

/** The SAT keys a concept may leave out when its `sku` names a product of the merchant's catalog. */
export type ConceptKeyField = 'sat_unit_key' | 'sat_product_service_key' | 'sat_tax_object_key';
export type QrConceptDraft = Omit<QrConceptInput, ConceptKeyField> & Partial<Pick<QrConceptInput, ConceptKeyField>>;

/** The body as validated by the schema, before product keys are filled in (resolve-concept-keys.ts). */
export type QrCreateDraft = Omit<QrCreateRequest, 'operation_data'> & { operation_data: QrConceptDraft[] };
