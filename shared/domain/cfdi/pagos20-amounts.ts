/**
 * The arithmetic of the Pagos 2.0 complement (Guía de llenado del CFDI con complemento para recepción de
 * pagos 2.0, SAT's CRP2xxxx validations), as plain decimal functions shared by the builder and the self-check.
 *
 * Rules applied (d = decimals of the currency named; all rounding half up unless said otherwise):
 * - DoctoRelacionado, in MonedaDR: ImpSaldoAnt and ImpPagado at d; ImpSaldoInsoluto = ImpSaldoAnt − ImpPagado
 *   (CRP20244), written "0" when settled, as SAT's sample does. EquivalenciaDR "1" when MonedaDR = MonedaP
 *   (CRP20238), otherwise as given at up to 10 decimals (XSD).
 * - TrasladoDR/RetencionDR: the invoice's taxes in proportion to what is paid, share = ImpPagado / invoice Total;
 *   BaseDR = base × share at d (six decimals when that would be 0: BaseDR must be > 0, CRP20255);
 *   ImporteDR = BaseDR × TasaOCuotaDR at d, inside Anexo 20's limits by construction (CRP20254/CRP20261).
 * - ImpuestosP, in MonedaP: the DR lines divided by EquivalenciaDR, grouped like the Comprobante's Impuestos
 *   (transfers by impuesto, factor and rate; withholdings by impuesto) and summed, at six decimals (t_Importe's
 *   most; SAT's sample writes BaseP="12931.040000"). The check accepts any value within one unit of its last
 *   written decimal of the exact sum, so a truncating issuer passes too (CRP20265/20268/20269/20274).
 * - Totales, in MXN at 2 decimals: each total = round(Σ over Pago of ImporteP or BaseP × TipoCambioP), for IVA
 *   16/8/0 % and exento transfers and ISR/IVA/IEPS withholdings, present only when some Pago has that tax
 *   (CRP20201–20210); MontoTotalPagos = round(Σ Monto × TipoCambioP) (CRP20211). TipoCambioP is "1" for MXN
 *   (CRP20215) and up to 6 decimals otherwise (XSD).
 * - Monto ≥ Σ ImpPagado converted (CRP20217): a document in the payment's currency counts as paid; one in another
 *   currency by the guide's lower limit (ImpPagado − ½·10^-d(ImpPagado)) / (EquivalenciaDR + ½·10^-d(EquivalenciaDR)),
 *   truncated to MonedaP's decimals.
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { groupTaxes, type TaxGroup, type TaxLine } from './anexo20-amounts.js';
import type { PaidInvoiceTax } from './cfdi-input.js';

/** BaseP and ImporteP carry this many decimals. */
export const PAYMENT_TAX_DECIMALS = 6;
export const EQUIVALENCE_DECIMALS = 10;
export const PAYMENT_EXCHANGE_RATE_DECIMALS = 6;
const TOTALS_DECIMALS = 2;

function halfUnit(decimals: number): Decimal {
  return new Money(10).pow(-decimals).div(2);
}

/** The invoice's taxes summed per tax, factor and rate (withholdings too: RetencionDR carries its rate). */
function invoiceTaxGroups(taxes: readonly PaidInvoiceTax[]): TaxLine[] {
  const groups = new Map<string, TaxLine>();
  for (const t of taxes) {
    const key = `${t.type}|${t.tax}|${t.factor}|${t.rate ?? ''}`;
    const group = groups.get(key);
    if (group) group.base = group.base.plus(t.base);
    else groups.set(key, { direction: t.type, tax: t.tax, factor: t.factor, rate: t.rate, base: new Money(t.base) });
  }
  return [...groups.values()];
}

/** TrasladoDR/RetencionDR lines: the share of each invoice tax that `paid` pays, in the document's currency. */
export function paidTaxLines(invoiceTotal: Decimal, taxes: readonly PaidInvoiceTax[], paid: Decimal, decimals: number): TaxLine[] {
  const share = new Money(paid).div(invoiceTotal);
  return invoiceTaxGroups(taxes).map((g) => {
    const exact = g.base.times(share);
    const rounded = exact.toDecimalPlaces(decimals);
    const base = rounded.isZero() ? exact.toDecimalPlaces(PAYMENT_TAX_DECIMALS) : rounded;
    const amount = g.factor === 'Exento' || g.rate === undefined ? undefined : base.times(g.rate).toDecimalPlaces(decimals);
    return { ...g, base, amount };
  });
}

/** The DR lines of one related document converted to the payment's currency, exactly. */
export function inPaymentCurrency(lines: readonly TaxLine[], equivalence: Decimal): TaxLine[] {
  return lines.map((l) => ({ ...l, base: new Money(l.base).div(equivalence), amount: l.amount === undefined ? undefined : new Money(l.amount).div(equivalence) }));
}

/** ImpuestosP of one Pago from its documents' lines already in its currency. */
export function paymentTaxes(lines: readonly TaxLine[]): TaxGroup[] {
  return groupTaxes(lines, PAYMENT_TAX_DECIMALS);
}

/** Whether a written BaseP/ImporteP is the exact sum truncated or rounded to the decimals it is written with. */
export function matchesSum(written: Decimal, writtenDecimals: number, exact: Decimal): boolean {
  return written.minus(exact).abs().lessThan(new Money(10).pow(-writtenDecimals));
}

/** What a related document's ImpPagado counts for against Monto, in the payment's currency (CRP20217). */
export function paidAmountFloor(paid: Decimal, paidDecimals: number, equivalence: Decimal, equivalenceDecimals: number, sameCurrency: boolean, paymentDecimals: number): Decimal {
  if (sameCurrency) return new Money(paid);
  return new Money(paid)
    .minus(halfUnit(paidDecimals))
    .div(new Money(equivalence).plus(halfUnit(equivalenceDecimals)))
    .toDecimalPlaces(paymentDecimals, Money.ROUND_DOWN);
}

export interface PaymentTotalRule {
  attribute: string;
  satCode: string;
  direction: 'Traslado' | 'Retencion';
  tax: string;
  factor?: string;
  rate?: string;
  of: 'base' | 'amount';
}

/** pago20:Totales's tax attributes, in the XSD's (and the cadena's) order. */
export const PAYMENT_TOTAL_RULES: readonly PaymentTotalRule[] = [
  { attribute: 'TotalRetencionesIVA', satCode: 'CRP20201', direction: 'Retencion', tax: '002', of: 'amount' },
  { attribute: 'TotalRetencionesISR', satCode: 'CRP20202', direction: 'Retencion', tax: '001', of: 'amount' },
  { attribute: 'TotalRetencionesIEPS', satCode: 'CRP20203', direction: 'Retencion', tax: '003', of: 'amount' },
  { attribute: 'TotalTrasladosBaseIVA16', satCode: 'CRP20204', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', of: 'base' },
  { attribute: 'TotalTrasladosImpuestoIVA16', satCode: 'CRP20205', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', of: 'amount' },
  { attribute: 'TotalTrasladosBaseIVA8', satCode: 'CRP20206', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.080000', of: 'base' },
  { attribute: 'TotalTrasladosImpuestoIVA8', satCode: 'CRP20207', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.080000', of: 'amount' },
  { attribute: 'TotalTrasladosBaseIVA0', satCode: 'CRP20208', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.000000', of: 'base' },
  { attribute: 'TotalTrasladosImpuestoIVA0', satCode: 'CRP20209', direction: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.000000', of: 'amount' },
  { attribute: 'TotalTrasladosBaseIVAExento', satCode: 'CRP20210', direction: 'Traslado', tax: '002', factor: 'Exento', of: 'base' },
];
export const TOTAL_PAYMENTS_SAT_CODE = 'CRP20211';

function ruleMatches(rule: PaymentTotalRule, group: TaxGroup): boolean {
  if (group.direction !== rule.direction || group.tax !== rule.tax) return false;
  if (rule.direction === 'Retencion') return true;
  if (group.factor !== rule.factor) return false;
  return rule.rate === undefined || (group.rate !== undefined && new Money(group.rate).equals(rule.rate));
}

export interface PaymentForTotals {
  /** TipoCambioP as written. */
  exchangeRate: Decimal;
  /** Monto as written. */
  amount: Decimal;
  /** ImpuestosP as written. */
  taxes: readonly TaxGroup[];
}

/** pago20:Totales: MontoTotalPagos and each applicable tax total, in MXN, from the values as written. */
export function paymentTotals(payments: readonly PaymentForTotals[]): { totalPayments: Decimal; taxes: Map<string, Decimal> } {
  const taxes = new Map<string, Decimal>();
  for (const rule of PAYMENT_TOTAL_RULES) {
    let sum: Decimal | undefined;
    for (const p of payments) {
      for (const g of p.taxes.filter((t) => ruleMatches(rule, t))) sum = (sum ?? new Money(0)).plus(new Money(g[rule.of]).times(p.exchangeRate));
    }
    if (sum) taxes.set(rule.attribute, sum.toDecimalPlaces(TOTALS_DECIMALS));
  }
  const totalPayments = payments.reduce((a, p) => a.plus(new Money(p.amount).times(p.exchangeRate)), new Money(0)).toDecimalPlaces(TOTALS_DECIMALS);
  return { totalPayments, taxes };
}

export function writeTotal(value: Decimal): string {
  return value.toFixed(TOTALS_DECIMALS);
}
