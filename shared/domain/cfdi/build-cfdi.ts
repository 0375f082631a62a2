/**
 * Builds the unsealed CFDI 4.0 element tree. An Ingreso/Egreso: concepts as given (their amounts were
 * checked against Anexo 20 when the sale was recorded), then the document's Impuestos and totals
 * computed here with decimal arithmetic and rounded to the currency's decimals at the end. A Pago: the
 * envelope Anexo 20 fixes for type P and the Pagos 2.0 complement (build-pagos20.ts).
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { QUANTITY_DECIMALS, UNIT_PRICE_DECIMALS, documentTotals, groupTaxes, writtenDecimals, type DocumentTotals, type TaxLine } from './anexo20-amounts.js';
import { PAGOS20_NAMESPACE, PAGOS20_SCHEMA_LOCATION, buildPagos20 } from './build-pagos20.js';
import type { CfdiConceptInput, CfdiInput, CfdiParty, CfdiPaymentInput, CfdiTaxInput } from './cfdi-input.js';
import { element, type XmlElement } from './xml-element.js';

export const CFDI_NAMESPACE = 'http://www.sat.gob.mx/cfd/4';
const SCHEMA_LOCATION = 'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd';
const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

/** An amount as the CFDI writes it: its own decimals, never fewer than the currency's (215 → 215.00). */
export function writeAmount(value: Decimal, currencyDecimals: number): string {
  return value.toFixed(writtenDecimals(value, currencyDecimals));
}

function taxNode(name: 'cfdi:Traslado' | 'cfdi:Retencion', t: CfdiTaxInput, cd: number): XmlElement {
  const exempt = t.factor === 'Exento';
  return element(name, {
    Base: writeAmount(t.base, cd),
    Impuesto: t.tax,
    TipoFactor: t.factor,
    TasaOCuota: exempt ? undefined : t.rate,
    Importe: exempt || !t.amount ? undefined : writeAmount(t.amount, cd),
  });
}

function conceptNode(c: CfdiConceptInput, cd: number): XmlElement {
  const transfers = c.taxes.filter((t) => t.type === 'Traslado');
  const withholdings = c.taxes.filter((t) => t.type === 'Retencion');
  const taxes: XmlElement[] = [];
  if (transfers.length > 0)
    taxes.push(
      element(
        'cfdi:Traslados',
        {},
        transfers.map((t) => taxNode('cfdi:Traslado', t, cd)),
      ),
    );
  if (withholdings.length > 0)
    taxes.push(
      element(
        'cfdi:Retenciones',
        {},
        withholdings.map((t) => taxNode('cfdi:Retencion', t, cd)),
      ),
    );
  return element(
    'cfdi:Concepto',
    {
      ClaveProdServ: c.productServiceKey,
      NoIdentificacion: c.sku,
      Cantidad: c.quantity.toFixed(QUANTITY_DECIMALS),
      ClaveUnidad: c.unitKey,
      Unidad: c.unitName,
      Descripcion: c.description,
      ValorUnitario: c.unitPrice.toFixed(UNIT_PRICE_DECIMALS),
      Importe: writeAmount(c.amount, cd),
      Descuento: c.discount && c.discount.greaterThan(0) ? writeAmount(c.discount, cd) : undefined,
      ObjetoImp: c.taxObject,
    },
    taxes.length > 0 ? [element('cfdi:Impuestos', {}, taxes)] : [],
  );
}

export interface BuiltCfdi {
  comprobante: XmlElement;
  totals: DocumentTotals;
}

function relatedNode(related: CfdiInput['relatedCfdis']): XmlElement[] {
  if (!related || related.uuids.length === 0) return [];
  return [
    element(
      'cfdi:CfdiRelacionados',
      { TipoRelacion: related.relationType },
      related.uuids.map((uuid) => element('cfdi:CfdiRelacionado', { UUID: uuid })),
    ),
  ];
}

function issuerNode(issuer: CfdiParty): XmlElement {
  return element('cfdi:Emisor', { Rfc: issuer.rfc, Nombre: issuer.name, RegimenFiscal: issuer.taxRegime });
}

export function buildCfdi(input: CfdiInput | CfdiPaymentInput): BuiltCfdi {
  return input.type === 'P' ? buildPaymentCfdi(input) : buildInvoiceCfdi(input);
}

/** Anexo 20's type P: SubTotal and Total 0, Moneda XXX, one fixed concept, UsoCFDI CP01, no payment form or method. */
function buildPaymentCfdi(input: CfdiPaymentInput): BuiltCfdi {
  const r = input.receptor;
  const children: XmlElement[] = [
    ...relatedNode(input.relatedCfdis),
    issuerNode(input.issuer),
    element('cfdi:Receptor', {
      Rfc: r.rfc,
      Nombre: r.name,
      DomicilioFiscalReceptor: r.postalCode,
      ResidenciaFiscal: r.taxResidence,
      RegimenFiscalReceptor: r.taxRegime,
      UsoCFDI: 'CP01',
    }),
    element('cfdi:Conceptos', {}, [
      element('cfdi:Concepto', {
        ClaveProdServ: '84111506',
        Cantidad: '1',
        ClaveUnidad: 'ACT',
        Descripcion: 'Pago',
        ValorUnitario: '0',
        Importe: '0',
        ObjetoImp: '01',
      }),
    ]),
    element('cfdi:Complemento', {}, [buildPagos20(input.payments)]),
  ];
  const comprobante = element(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': CFDI_NAMESPACE,
      'xmlns:xsi': XSI_NAMESPACE,
      'xmlns:pago20': PAGOS20_NAMESPACE,
      'xsi:schemaLocation': `${SCHEMA_LOCATION} ${PAGOS20_SCHEMA_LOCATION}`,
      Version: '4.0',
      Serie: input.series,
      Folio: input.folio,
      Fecha: input.issuedLocal,
      SubTotal: '0',
      Moneda: 'XXX',
      Total: '0',
      TipoDeComprobante: 'P',
      Exportacion: '01',
      LugarExpedicion: input.expeditionPlace,
    },
    children,
  );
  const zero = new Money(0);
  return { comprobante, totals: { subtotal: zero, discount: zero, transferred: zero, withheld: zero, total: zero } };
}

function buildInvoiceCfdi(input: CfdiInput): BuiltCfdi {
  const cd = input.currencyDecimals;
  const lines: TaxLine[] = input.concepts.flatMap((c) => c.taxes.map((t) => ({ direction: t.type, tax: t.tax, factor: t.factor, rate: t.rate, base: t.base, amount: t.amount })));
  const groups = groupTaxes(lines, cd);
  const totals = documentTotals(
    input.concepts.map((c) => ({ amount: c.amount, discount: c.discount })),
    groups,
    cd,
  );
  const hasDiscount = input.concepts.some((c) => c.discount?.greaterThan(0));
  const fixed = (value: Decimal) => value.toFixed(cd);

  const children: XmlElement[] = [];
  if (input.globalInfo) {
    children.push(element('cfdi:InformacionGlobal', { Periodicidad: input.globalInfo.periodicity, Meses: input.globalInfo.months, Año: String(input.globalInfo.year) }));
  }
  children.push(...relatedNode(input.relatedCfdis), issuerNode(input.issuer));
  const r = input.receptor;
  children.push(
    element('cfdi:Receptor', {
      Rfc: r.rfc,
      Nombre: r.name,
      DomicilioFiscalReceptor: r.postalCode,
      ResidenciaFiscal: r.taxResidence,
      RegimenFiscalReceptor: r.taxRegime,
      UsoCFDI: r.cfdiUse,
    }),
  );
  children.push(
    element(
      'cfdi:Conceptos',
      {},
      input.concepts.map((c) => conceptNode(c, cd)),
    ),
  );

  const transfers = groups.filter((g) => g.direction === 'Traslado');
  const withholdings = groups.filter((g) => g.direction === 'Retencion');
  if (transfers.length > 0 || withholdings.length > 0) {
    const taxChildren: XmlElement[] = [];
    if (withholdings.length > 0)
      taxChildren.push(
        element(
          'cfdi:Retenciones',
          {},
          withholdings.map((g) => element('cfdi:Retencion', { Impuesto: g.tax, Importe: fixed(g.amount) })),
        ),
      );
    if (transfers.length > 0) {
      taxChildren.push(
        element(
          'cfdi:Traslados',
          {},
          transfers.map((g) => {
            const exempt = g.factor === 'Exento';
            return element('cfdi:Traslado', {
              Base: fixed(g.base),
              Impuesto: g.tax,
              TipoFactor: g.factor,
              TasaOCuota: exempt ? undefined : g.rate,
              Importe: exempt ? undefined : fixed(g.amount),
            });
          }),
        ),
      );
    }
    const onlyExempt = transfers.every((g) => g.factor === 'Exento');
    children.push(
      element(
        'cfdi:Impuestos',
        {
          TotalImpuestosRetenidos: withholdings.length > 0 ? fixed(totals.withheld) : undefined,
          TotalImpuestosTrasladados: transfers.length > 0 && !onlyExempt ? fixed(totals.transferred) : undefined,
        },
        taxChildren,
      ),
    );
  }

  const foreign = input.currency !== 'MXN' && input.currency !== 'XXX';
  const comprobante = element(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': CFDI_NAMESPACE,
      'xmlns:xsi': XSI_NAMESPACE,
      'xsi:schemaLocation': SCHEMA_LOCATION,
      Version: '4.0',
      Serie: input.series,
      Folio: input.folio,
      Fecha: input.issuedLocal,
      FormaPago: input.paymentForm,
      SubTotal: fixed(totals.subtotal),
      Descuento: hasDiscount ? fixed(totals.discount) : undefined,
      Moneda: input.currency,
      TipoCambio: foreign ? (input.exchangeRate ?? new Money(1)).toFixed(writtenDecimals(input.exchangeRate ?? 1)) : undefined,
      Total: fixed(totals.total),
      TipoDeComprobante: input.type,
      Exportacion: input.exportCode,
      MetodoPago: input.paymentMethod,
      LugarExpedicion: input.expeditionPlace,
    },
    children,
  );
  return { comprobante, totals };
}
