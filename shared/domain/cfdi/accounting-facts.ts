import { dec } from '../money.js';
import { parseXml } from './parse-xml.js';
import { attribute, child, descendants, type XmlElement } from './xml-element.js';

/** A tax an accountant reconciles on its own column: impuesto (001 ISR, 002 IVA, 003 IEPS) and its direction. */
export const ACCOUNTING_TAXES = [
  { column: 'iva_transferred', tax: '002', kind: 'Traslado' },
  { column: 'ieps_transferred', tax: '003', kind: 'Traslado' },
  { column: 'isr_withheld', tax: '001', kind: 'Retencion' },
  { column: 'iva_withheld', tax: '002', kind: 'Retencion' },
  { column: 'ieps_withheld', tax: '003', kind: 'Retencion' },
] as const;

export type AccountingTaxColumn = (typeof ACCOUNTING_TAXES)[number]['column'];

/**
 * What a CFDI says that an accountant reconciles, read from the document as sealed (the stamp adds only its
 * TimbreFiscalDigital): amounts exactly as written in it (decimal text, never a float), absent ones null.
 */
export interface AccountingFacts {
  /** Fecha: the issue time on the issuer's clock, as SAT reads it. */
  date: string;
  type: string;
  receptorRfc: string;
  receptorName: string;
  cfdiUse: string;
  paymentForm: string | null;
  paymentMethod: string | null;
  subtotal: string;
  discount: string | null;
  taxes: Record<AccountingTaxColumn, string | null>;
  total: string;
  currency: string;
  exchangeRate: string | null;
  /** A payment complement's MontoTotalPagos (its Total is 0 by SAT's rule). */
  paymentsTotal: string | null;
  /** Every CfdiRelacionado with its group's TipoRelacion. */
  related: { type: string; uuid: string }[];
}

/** Decimals as written ("72.80" has 2: decimal.js would say 1, having dropped the zero). */
function writtenPlaces(text: string): number {
  return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
}

/** Sum of decimal texts at the most decimals any of them is written with ("16.00" + "2.5" = "18.50", "72.80" alone "72.80"). */
function sumText(values: string[]): string | null {
  if (values.length === 0) return null;
  const places = Math.max(...values.map(writtenPlaces));
  return values.reduce((sum, v) => sum.plus(v), dec(0)).toFixed(places);
}

function taxTotals(comprobante: XmlElement): Record<AccountingTaxColumn, string | null> {
  const impuestos = child(comprobante, 'cfdi:Impuestos');
  const lines = (kind: 'Traslado' | 'Retencion', tax: string) =>
    impuestos
      ? descendants(impuestos, kind === 'Traslado' ? ['cfdi:Traslados', 'cfdi:Traslado'] : ['cfdi:Retenciones', 'cfdi:Retencion'])
          .filter((t) => attribute(t, 'Impuesto') === tax)
          .flatMap((t) => {
            const amount = attribute(t, 'Importe');
            return amount === undefined ? [] : [amount];
          })
      : [];
  const out = {} as Record<AccountingTaxColumn, string | null>;
  for (const t of ACCOUNTING_TAXES) out[t.column] = sumText(lines(t.kind, t.tax));
  return out;
}

export function accountingFacts(xml: string): AccountingFacts {
  const c = parseXml(xml);
  const receptor = child(c, 'cfdi:Receptor') ?? c;
  const pagos = descendants(c, ['cfdi:Complemento', 'pago20:Pagos'])[0];
  const totales = pagos ? child(pagos, 'pago20:Totales') : undefined;
  return {
    date: attribute(c, 'Fecha') ?? '',
    type: attribute(c, 'TipoDeComprobante') ?? '',
    receptorRfc: attribute(receptor, 'Rfc') ?? '',
    receptorName: attribute(receptor, 'Nombre') ?? '',
    cfdiUse: attribute(receptor, 'UsoCFDI') ?? '',
    paymentForm: attribute(c, 'FormaPago') ?? null,
    paymentMethod: attribute(c, 'MetodoPago') ?? null,
    subtotal: attribute(c, 'SubTotal') ?? '0',
    discount: attribute(c, 'Descuento') ?? null,
    taxes: taxTotals(c),
    total: attribute(c, 'Total') ?? '0',
    currency: attribute(c, 'Moneda') ?? '',
    exchangeRate: attribute(c, 'TipoCambio') ?? null,
    paymentsTotal: (totales && attribute(totales, 'MontoTotalPagos')) ?? null,
    related: c.children
      .filter((g) => g.name === 'cfdi:CfdiRelacionados')
      .flatMap((g) =>
        g.children.filter((r) => r.name === 'cfdi:CfdiRelacionado').map((r) => ({ type: attribute(g, 'TipoRelacion') ?? '', uuid: (attribute(r, 'UUID') ?? '').toUpperCase() })),
      ),
  };
}
