/**
 * The body of POST /v1/qrs after schema validation (see qr-request-schema.ts).
 * Money and quantities arrive as JSON numbers; domain code reads them with `dec()`.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { qrCreateRequestSchema } from './qr-request-schema.js';

/** The body as the schema validates it, before product keys are filled in (resolve-concept-keys.ts). */
export type QrCreateDraft = FromSchema<typeof qrCreateRequestSchema>;
export type QrConceptDraft = QrCreateDraft['operation_data'][number];
export type QrTaxInput = NonNullable<QrConceptDraft['taxes']>[number];
export type TaxType = QrTaxInput['type'];
export type TaxFactor = QrTaxInput['factor'];
export type QrOperation = QrCreateDraft['operation'];
export type RelatedCfdis = NonNullable<QrCreateDraft['related_cfdis']>;
export type GlobalInfo = NonNullable<QrCreateDraft['global_info']>;

/** The SAT keys a concept may leave out when its `sku` names a product of the merchant's catalog. */
export type ConceptKeyField = 'sat_unit_key' | 'sat_product_service_key' | 'sat_tax_object_key';
/** A concept with its SAT keys, given or taken from the product catalog. */
export type QrConceptInput = QrConceptDraft & Required<Pick<QrConceptDraft, ConceptKeyField>>;
/** The body of POST /v1/qrs once every concept has its SAT keys. */
export type QrCreateRequest = Omit<QrCreateDraft, 'operation_data'> & { operation_data: QrConceptInput[] };
