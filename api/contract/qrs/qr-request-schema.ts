/**
 * JSON Schema of POST /v1/qrs, used by ajv for validation and by the OpenAPI document.
 * `x-decimal` is our keyword: at most 9 integer digits and 6 decimals (numeric(15,6)); `x-cfdi-text`
 * checks a value against SAT's schema for the CFDI attribute it is written to.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { QrCreateDraft } from '../../../shared/qr/qr-request.js';
import type { Proof, SameType } from '../same-type.js';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';

export const QR_LIMITS = {
  maxConcepts: 100,
  maxTaxesPerConcept: 10,
  maxMetadataKeys: 20,
  maxMetadataValueLength: 500,
  maxExpiryDays: 31,
} as const;

const money = { type: 'number', minimum: 0, 'x-decimal': true } as const;
const positive = { type: 'number', exclusiveMinimum: 0, 'x-decimal': true } as const;

const taxSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tax', 'factor', 'taxable_base'],
  properties: {
    type: { type: 'string', enum: ['Traslado', 'Retencion'], description: 'Traslado (transferred) or Retencion (withheld)' },
    tax: { type: 'string', pattern: '^[0-9]{3}$', description: 'c_Impuesto: 001 (ISR), 002 (IVA), 003 (IEPS)' },
    factor: { type: 'string', enum: ['Tasa', 'Cuota', 'Exento'], description: 'c_TipoFactor: a rate, a fixed amount per unit, or exempt (no rate, no amount)' },
    rate: { type: 'string', pattern: '^[0-9]{1,3}\\.[0-9]{6}$', description: 'Six decimals as text: 16 % is 0.160000' },
    taxable_base: positive,
    amount: { ...money, description: 'taxable_base × rate' },
  },
} as const;

const conceptSchema = {
  type: 'object',
  additionalProperties: false,
  // The SAT keys may be left out when `sku` names a product of the merchant's catalog (resolve-concept-keys.ts).
  required: ['description', 'amount', 'quantity', 'unit_price'],
  properties: {
    sku: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptSku },
    description: { type: 'string', 'x-cfdi-text': CFDI_TEXT.conceptDescription },
    amount: money,
    quantity: positive,
    discount: money,
    unit_price: money,
    sat_unit_key: { type: 'string', minLength: 1, maxLength: 3, description: 'c_ClaveUnidad, e.g. H87 (Pieza), LTR (Litro), KGM (Kilogramo), E48 (Unidad de servicio)' },
    sat_product_service_key: { type: 'string', pattern: '^[0-9]{8}$', description: 'c_ClaveProdServ, e.g. 50202301 (Agua), 15101514 (Gasolina regular menor a 91 octanos)' },
    sat_tax_object_key: {
      type: 'string',
      pattern: '^[0-9]{2}$',
      description: 'c_ObjetoImp: 01 (No objeto de impuesto.) needs no taxes, 02 (Sí objeto de impuesto.) needs them; also 03 to 08',
    },
    taxes: { type: 'array', maxItems: QR_LIMITS.maxTaxesPerConcept, items: taxSchema },
  },
} as const;

export const qrCreateRequestSchema = {
  $id: 'QrCreateRequest',
  type: 'object',
  additionalProperties: false,
  required: [
    'store_uid',
    'sale_id',
    'operation',
    'amount',
    'subtotal',
    'currency',
    'sat_payment_method',
    'sat_payment_form',
    'expires_at',
    'type_of_receipt',
    'export_code',
    'operation_data',
  ],
  properties: {
    store_uid: { type: 'string', minLength: 1, maxLength: 100 },
    sale_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      // The global invoice writes it as its ticket's NoIdentificacion: a character XML cannot hold (a scanner's GS) or "|" would block the period's report.
      'x-cfdi-text': CFDI_TEXT.saleId,
      description:
        "The point of sale's id of the sale: up to 100 characters, no control characters (a barcode scanner's GS, U+001D) and no \"|\" — it is the ticket's NoIdentificacion in the period's global invoice",
    },
    operation: { type: 'string', enum: ['INVOICE', 'PAYMENT', 'REFUND'] },
    amount: positive,
    subtotal: money,
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'c_Moneda (ISO 4217), e.g. MXN; another currency needs exchange_rate' },
    exchange_rate: { anyOf: [{ type: 'null' }, positive], description: 'MXN per unit of currency' },
    sat_payment_method: { type: 'string', pattern: '^[A-Z]{3}$', description: 'c_MetodoPago: PUE (Pago en una sola exhibición) or PPD (Pago en parcialidades o diferido)' },
    sat_payment_form: {
      type: 'string',
      pattern: '^[0-9]{2}$',
      description: 'c_FormaPago, e.g. 01 (Efectivo), 03 (Transferencia electrónica de fondos), 04 (Tarjeta de crédito), 28 (Tarjeta de débito), 99 (Por definir)',
    },
    expires_at: { type: 'string', format: 'date-time', description: `Until when the buyer may invoice: in the future, at most ${QR_LIMITS.maxExpiryDays} days ahead` },
    type_of_receipt: { type: 'string', pattern: '^[A-Z]$', description: 'c_TipoDeComprobante of the invoice: I (Ingreso) or E (Egreso)' },
    export_code: {
      type: 'string',
      pattern: '^[0-9]{2}$',
      description:
        'c_Exportacion: 01 (No aplica), 02 (Definitiva con clave A1), 03 (Temporal), 04 (Definitiva con clave distinta a A1 o cuando no existe enajenación en términos del CFF)',
    },
    related_cfdis: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['tipo_relacion', 'cfdis'],
          properties: {
            tipo_relacion: { type: 'string', pattern: '^[0-9]{2}$', description: 'c_TipoRelacion, e.g. 04 (Sustitución de los CFDI previos)' },
            cfdis: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', format: 'uuid' } },
          },
        },
      ],
    },
    global_info: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['periodicity', 'months', 'year'],
          properties: {
            periodicity: { type: 'string', pattern: '^[0-9]{2}$', description: 'c_Periodicidad, e.g. 04 (Mensual)' },
            months: { type: 'string', pattern: '^[0-9]{2}$', description: 'c_Meses, e.g. 12 (Diciembre)' },
            year: { type: 'integer', minimum: 2021, maximum: 9999 },
          },
        },
      ],
    },
    metadata: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          maxProperties: QR_LIMITS.maxMetadataKeys,
          propertyNames: { maxLength: 40 },
          additionalProperties: { type: 'string', maxLength: QR_LIMITS.maxMetadataValueLength },
        },
      ],
    },
    offline_ticket: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description:
        "The link of the ticket the point of sale printed while offline (format version 2, signed with the store's offline key): this sale catches it up. sale_id and amount must be the ticket's; a ticket is caught up once",
    },
    operation_data: { type: 'array', minItems: 1, maxItems: QR_LIMITS.maxConcepts, items: conceptSchema },
  },
} as const;

// What ajv validates is the QR feature's QrCreateDraft, field for field: a change on one side alone fails tsc.
type _ValidatesQrCreateDraft = Proof<SameType<FromSchema<typeof qrCreateRequestSchema>, QrCreateDraft>>;
