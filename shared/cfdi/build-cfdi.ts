/**
 * Builds the unsealed CFDI 4.0 element tree from a CfdiInput: concepts as given (their amounts were
 * checked against Anexo 20 when the sale was recorded), then the document's Impuestos and totals
 * computed here with decimal arithmetic and rounded to the currency's decimals at the end.
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { QUANTITY_DECIMALS, UNIT_PRICE_DECIMALS, documentTotals, groupTaxes, writtenDecimals, type DocumentTotals, type TaxLine } from './anexo20-amounts.js';
import type { CfdiConceptInput, CfdiInput, CfdiTaxInput } from './cfdi-input.js';
import { element, type XmlElement } from './xml-element.js';

export const CFDI_NAMESPACE = 'http://www.sat.gob.mx/cfd/4';
const SCHEMA_LOCATION = 'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd';

/** An amount as the CFDI writes it: its own decimals, never fewer than the currency's (215 → 215.00). */
export function writeAmount(value: Decimal, currencyDecimals: number): string {
  return value.toFixed(writtenDecimals(value, currencyDecimals));
}

function taxNode(name: 'cfdi:Traslado' | 'cfdi:Retencion', t: CfdiTaxInput, cd: number): XmlElement {
  const exempt = t.factor === 'Exento';
  return element(name, {
    Base: writeAmount(t.base, cd), Impuesto: t.tax, TipoFactor: t.factor,
    TasaOCuota: exempt ? undefined : t.rate, Importe: exempt || !t.amount ? undefined : writeAmount(t.amount, cd),
  });
}

function conceptNode(c: CfdiConceptInput, cd: number): XmlElement {
  const transfers = c.taxes.filter((t) => t.type === 'Traslado');
  const withholdings = c.taxes.filter((t) => t.type === 'Retencion');
  const taxes: XmlElement[] = [];
  if (transfers.length > 0) taxes.push(element('cfdi:Traslados', {}, transfers.map((t) => taxNode('cfdi:Traslado', t, cd))));
  if (withholdings.length > 0) taxes.push(element('cfdi:Retenciones', {}, withholdings.map((t) => taxNode('cfdi:Retencion', t, cd))));
  return element('cfdi:Concepto', {
    ClaveProdServ: c.productServiceKey, NoIdentificacion: c.sku, Cantidad: c.quantity.toFixed(QUANTITY_DECIMALS), ClaveUnidad: c.unitKey,
    Unidad: c.unitName, Descripcion: c.description, ValorUnitario: c.unitPrice.toFixed(UNIT_PRICE_DECIMALS), Importe: writeAmount(c.amount, cd),
    Descuento: c.discount && c.discount.greaterThan(0) ? writeAmount(c.discount, cd) : undefined, ObjetoImp: c.taxObject,
  }, taxes.length > 0 ? [element('cfdi:Impuestos', {}, taxes)] : []);
}

export interface BuiltCfdi {
  comprobante: XmlElement;
  totals: DocumentTotals;
}

export function buildCfdi(input: CfdiInput): BuiltCfdi {
  const cd = input.currencyDecimals;
  const lines: TaxLine[] = input.concepts.flatMap((c) => c.taxes.map((t) => ({ direction: t.type, tax: t.tax, factor: t.factor, rate: t.rate, base: t.base, amount: t.amount })));
  const groups = groupTaxes(lines, cd);
  const totals = documentTotals(input.concepts.map((c) => ({ amount: c.amount, discount: c.discount })), groups, cd);
  const hasDiscount = input.concepts.some((c) => c.discount?.greaterThan(0));
  const fixed = (value: Decimal) => value.toFixed(cd);

  const children: XmlElement[] = [];
  if (input.globalInfo) {
    children.push(element('cfdi:InformacionGlobal', { Periodicidad: input.globalInfo.periodicity, Meses: input.globalInfo.months, Año: String(input.globalInfo.year) }));
  }
  if (input.relatedCfdis && input.relatedCfdis.uuids.length > 0) {
    children.push(element('cfdi:CfdiRelacionados', { TipoRelacion: input.relatedCfdis.relationType }, input.relatedCfdis.uuids.map((uuid) => element('cfdi:CfdiRelacionado', { UUID: uuid }))));
  }
  children.push(element('cfdi:Emisor', { Rfc: input.issuer.rfc, Nombre: input.issuer.name, RegimenFiscal: input.issuer.taxRegime }));
  const r = input.receptor;
  children.push(element('cfdi:Receptor', {
    Rfc: r.rfc, Nombre: r.name, DomicilioFiscalReceptor: r.postalCode, ResidenciaFiscal: r.taxResidence, RegimenFiscalReceptor: r.taxRegime, UsoCFDI: r.cfdiUse,
  }));
  children.push(element('cfdi:Conceptos', {}, input.concepts.map((c) => conceptNode(c, cd))));

  const transfers = groups.filter((g) => g.direction === 'Traslado');
  const withholdings = groups.filter((g) => g.direction === 'Retencion');
  if (transfers.length > 0 || withholdings.length > 0) {
    const taxChildren: XmlElement[] = [];
    if (withholdings.length > 0) taxChildren.push(element('cfdi:Retenciones', {}, withholdings.map((g) => element('cfdi:Retencion', { Impuesto: g.tax, Importe: fixed(g.amount) }))));
    if (transfers.length > 0) {
      taxChildren.push(element('cfdi:Traslados', {}, transfers.map((g) => {
        const exempt = g.factor === 'Exento';
        return element('cfdi:Traslado', { Base: fixed(g.base), Impuesto: g.tax, TipoFactor: g.factor, TasaOCuota: exempt ? undefined : g.rate, Importe: exempt ? undefined : fixed(g.amount) });
      })));
    }
    const onlyExempt = transfers.every((g) => g.factor === 'Exento');
    children.push(element('cfdi:Impuestos', {
      TotalImpuestosRetenidos: withholdings.length > 0 ? fixed(totals.withheld) : undefined,
      TotalImpuestosTrasladados: transfers.length > 0 && !onlyExempt ? fixed(totals.transferred) : undefined,
    }, taxChildren));
  }

  const foreign = input.currency !== 'MXN' && input.currency !== 'XXX';
  const comprobante = element('cfdi:Comprobante', {
    'xmlns:cfdi': CFDI_NAMESPACE,
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': SCHEMA_LOCATION,
    Version: '4.0', Serie: input.series, Folio: input.folio, Fecha: input.issuedLocal, FormaPago: input.paymentForm,
    SubTotal: fixed(totals.subtotal), Descuento: hasDiscount ? fixed(totals.discount) : undefined, Moneda: input.currency,
    TipoCambio: foreign ? (input.exchangeRate ?? new Money(1)).toFixed(writtenDecimals(input.exchangeRate ?? 1)) : undefined,
    Total: fixed(totals.total), TipoDeComprobante: input.type, Exportacion: input.exportCode, MetodoPago: input.paymentMethod,
    LugarExpedicion: input.expeditionPlace,
  }, children);
  return { comprobante, totals };
}
