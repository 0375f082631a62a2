/**
 * SAT catalog rules on a POST /v1/qrs body (422 `rule_violation` details): every key exists and is in
 * force on the issue date, taxes are allowed for their direction, factor and rate (c_Impuesto,
 * c_TasaOCuota), tax objects agree with the taxes given, and the combinations CFDI 4.0 forbids are refused.
 */
import type { ErrorDetail } from '../platform/errors.js';
import type { CatalogName, SatCatalogs } from '../sat/catalogs.js';
import type { QrCreateRequest, QrTaxInput } from './qr-request.js';

export interface RuleContext {
  catalogs: SatCatalogs;
  /** the document's local issue date, YYYY-MM-DD */
  onDate: string;
}

/** Receipt types a sale QR can become; P, T and N have their own documents and rules. */
const SUPPORTED_RECEIPTS = new Set(['I', 'E']);
const NO_TAXES_OBJECTS = new Set(['01', '03', '04', '08']);
const TAXES_REQUIRED_OBJECTS = new Set(['02', '05', '07']);
const NO_IVA_TRANSFER_OBJECTS = new Set(['06', '07', '08']);
const IVA = '002';
const IEPS = '003';

/** A field path under `field`, which is empty for a top-level object. */
function at(field: string, name: string): string {
  return field === '' ? name : `${field}.${name}`;
}

export function catalogKey(ctx: RuleContext, out: ErrorDetail[], field: string, catalog: CatalogName, key: string): boolean {
  const result = ctx.catalogs.check(catalog, key, ctx.onDate);
  if (result.ok) return true;
  out.push(
    result.reason === 'unknown'
      ? { field, code: 'catalog_key_unknown', message: `"${key}" is not a key of SAT's ${catalog}.` }
      : {
          field,
          code: 'catalog_key_not_in_force',
          message: `"${key}" of ${catalog} is not in force on ${ctx.onDate} (valid ${result.entry?.validFrom ?? '…'} to ${result.entry?.validTo ?? '…'}).`,
        },
  );
  return false;
}

/** A tax as far as the catalogs go: a QR tax carries amounts too, a catalog product's tax does not. */
export type TaxRateInput = Pick<QrTaxInput, 'type' | 'tax' | 'factor' | 'rate'> & { amount?: number };

function checkTax(ctx: RuleContext, out: ErrorDetail[], field: string, tax: TaxRateInput, withAmounts: boolean): void {
  if (!catalogKey(ctx, out, at(field, 'tax'), 'c_Impuesto', tax.tax)) return;
  if (!ctx.catalogs.taxAllows(tax.tax, tax.type)) {
    out.push({ field: at(field, 'type'), code: 'tax_type_not_allowed', message: `Tax ${tax.tax} (${ctx.catalogs.description('c_Impuesto', tax.tax)}) cannot be a ${tax.type}.` });
    return;
  }
  if (tax.factor === 'Exento') {
    if (tax.type === 'Retencion') {
      out.push({ field: at(field, 'factor'), code: 'factor_not_allowed', message: 'An exempt factor is only allowed on transfers (Traslado).' });
    } else if ((tax.rate !== undefined && Number(tax.rate) !== 0) || (withAmounts && tax.amount !== undefined && tax.amount !== 0)) {
      out.push({ field, code: 'exempt_with_amount', message: 'An exempt tax (factor Exento) carries no rate and no amount.' });
    }
    return;
  }
  if (!ctx.catalogs.factorAllowed(tax.tax, tax.factor, tax.type, ctx.onDate)) {
    out.push({ field: at(field, 'factor'), code: 'factor_not_allowed', message: `Factor ${tax.factor} is not allowed for tax ${tax.tax} as ${tax.type} (c_TasaOCuota).` });
    return;
  }
  if (tax.rate === undefined) {
    out.push({ field: at(field, 'rate'), code: 'rate_required', message: `rate is required for factor ${tax.factor} (six decimals, e.g. "0.160000").` });
  } else if (!ctx.catalogs.rateAllowed(tax.tax, tax.factor, tax.type, tax.rate, ctx.onDate)) {
    out.push({ field: at(field, 'rate'), code: 'rate_not_allowed', message: `Rate ${tax.rate} is not in c_TasaOCuota for tax ${tax.tax}, factor ${tax.factor}, ${tax.type}.` });
  }
  if (withAmounts && tax.amount === undefined) {
    out.push({ field: at(field, 'amount'), code: 'tax_amount_required', message: `amount is required for factor ${tax.factor}.` });
  }
}

function checkTaxObject(out: ErrorDetail[], field: string, object: string, taxes: readonly TaxRateInput[]): void {
  if (NO_TAXES_OBJECTS.has(object) && taxes.length > 0) {
    out.push({ field: at(field, 'taxes'), code: 'taxes_not_allowed', message: `Tax object ${object} carries no taxes; remove them or use tax object 02.` });
  }
  if (TAXES_REQUIRED_OBJECTS.has(object) && !taxes.some((t) => t.type === 'Traslado' || t.type === 'Retencion')) {
    out.push({ field: at(field, 'taxes'), code: 'taxes_required', message: `Tax object ${object} requires at least one tax.` });
  }
  if (NO_IVA_TRANSFER_OBJECTS.has(object) && taxes.some((t) => t.type === 'Traslado' && t.tax === IVA)) {
    out.push({ field: at(field, 'taxes'), code: 'iva_transfer_not_allowed', message: `Tax object ${object} means IVA is not transferred.` });
  }
  if (object === '07' && !taxes.some((t) => t.type === 'Traslado' && t.tax === IEPS)) {
    out.push({ field: at(field, 'taxes'), code: 'taxes_required', message: 'Tax object 07 requires the IEPS transfer.' });
  }
}

export function checkQrCatalogs(request: QrCreateRequest, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (catalogKey(ctx, out, 'type_of_receipt', 'c_TipoDeComprobante', request.type_of_receipt) && !SUPPORTED_RECEIPTS.has(request.type_of_receipt)) {
    out.push({
      field: 'type_of_receipt',
      code: 'receipt_type_not_supported',
      message: `A sale QR becomes an Ingreso (I) or Egreso (E) CFDI; ${request.type_of_receipt} is issued by its own operation.`,
    });
  }
  catalogKey(ctx, out, 'sat_payment_form', 'c_FormaPago', request.sat_payment_form);
  if (catalogKey(ctx, out, 'sat_payment_method', 'c_MetodoPago', request.sat_payment_method) && request.sat_payment_method === 'PPD' && request.sat_payment_form !== '99') {
    out.push({ field: 'sat_payment_form', code: 'payment_form_must_be_99', message: 'With payment method PPD the payment form is 99 (Por definir).' });
  }
  if (catalogKey(ctx, out, 'currency', 'c_Moneda', request.currency) && request.currency === 'XXX') {
    out.push({ field: 'currency', code: 'currency_not_allowed', message: 'XXX (no currency) is only for payment receipts.' });
  }
  catalogKey(ctx, out, 'export_code', 'c_Exportacion', request.export_code);
  if (request.related_cfdis) catalogKey(ctx, out, 'related_cfdis.tipo_relacion', 'c_TipoRelacion', request.related_cfdis.tipo_relacion);
  if (request.global_info) {
    const { periodicity, months } = request.global_info;
    const periodicityOk = catalogKey(ctx, out, 'global_info.periodicity', 'c_Periodicidad', periodicity);
    // Months 13–18 are the two-month periods, which only the bimonthly periodicity (05) uses.
    if (catalogKey(ctx, out, 'global_info.months', 'c_Meses', months) && periodicityOk && Number(months) > 12 !== (periodicity === '05')) {
      out.push({ field: 'global_info.months', code: 'months_not_allowed', message: `Months ${months} do not fit periodicity ${periodicity} (13–18 only with 05, bimonthly).` });
    }
  }
  request.operation_data.forEach((concept, i) => {
    out.push(
      ...checkConceptKeys(
        ctx,
        `operation_data[${i}]`,
        {
          unitKey: concept.sat_unit_key,
          productKey: concept.sat_product_service_key,
          taxObjectKey: concept.sat_tax_object_key,
          taxes: concept.taxes ?? [],
        },
        { names: QR_CONCEPT_FIELDS, withAmounts: true },
      ),
    );
  });
  return out;
}

export interface ConceptKeys {
  unitKey: string;
  productKey: string;
  taxObjectKey: string;
  taxes: readonly TaxRateInput[];
}

export interface ConceptFieldNames {
  unitKey: string;
  productKey: string;
  taxObjectKey: string;
}

const QR_CONCEPT_FIELDS: ConceptFieldNames = { unitKey: 'sat_unit_key', productKey: 'sat_product_service_key', taxObjectKey: 'sat_tax_object_key' };

/** The SAT keys of a concept (a QR's, or a catalog product's) and its taxes against the catalogs. */
export function checkConceptKeys(ctx: RuleContext, field: string, c: ConceptKeys, options: { names: ConceptFieldNames; withAmounts: boolean }): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const { names } = options;
  catalogKey(ctx, out, at(field, names.unitKey), 'c_ClaveUnidad', c.unitKey);
  catalogKey(ctx, out, at(field, names.productKey), 'c_ClaveProdServ', c.productKey);
  if (catalogKey(ctx, out, at(field, names.taxObjectKey), 'c_ObjetoImp', c.taxObjectKey)) checkTaxObject(out, field, c.taxObjectKey, c.taxes);
  c.taxes.forEach((tax, j) => checkTax(ctx, out, at(field, `taxes[${j}]`), tax, options.withAmounts));
  return out;
}
