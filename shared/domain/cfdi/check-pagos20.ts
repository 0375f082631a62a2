/**
 * SAT's checks on a type P CFDI and its Pagos 2.0 complement (CRP2xxxx) that need no catalog: the fixed
 * envelope, balances, conversions, the related documents' tax amounts and the sums in ImpuestosP and
 * Totales, read back from the values as written (rules in pagos20-amounts.ts). Part of checkCfdiAmounts.
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { taxAmountLimits, withinLimits, type TaxGroup, type TaxLine } from './anexo20-amounts.js';
import type { CfdiFinding } from './cfdi-finding.js';
import {
  PAYMENT_TOTAL_RULES,
  TOTAL_PAYMENTS_SAT_CODE,
  inPaymentCurrency,
  matchesSum,
  paidAmountFloor,
  paymentTotals,
  writeTotal,
  type PaymentForTotals,
} from './pagos20-amounts.js';
import { attribute, child, children, descendants, type XmlElement } from './xml-element.js';

/** Attributes a type P Comprobante must not carry. */
const ABSENT_IN_PAYMENT_CFDI: readonly [string, string][] = [
  ['FormaPago', 'CRP20105'],
  ['MetodoPago', 'CRP20106'],
  ['CondicionesDePago', 'CRP20107'],
  ['Descuento', 'CRP20108'],
  ['TipoCambio', 'CRP20109'],
];
/** ObjetoImpDR values that carry no ImpuestosDR (CRP20247). */
const NOT_TAXED = ['01', '03', '04', '05'];

function written(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

function num(node: XmlElement, name: string): Decimal {
  return new Money(attribute(node, name) ?? '0');
}

function groupKey(g: { direction: string; tax: string; factor: string; rate?: string }): string {
  return g.direction === 'Retencion' ? `Retencion ${g.tax}` : `Traslado ${g.tax} ${g.factor}${g.rate === undefined ? '' : ` ${new Money(g.rate).toFixed(6)}`}`;
}

function drLines(doc: XmlElement): TaxLine[] {
  const line =
    (direction: TaxLine['direction']) =>
    (t: XmlElement): TaxLine => ({
      direction,
      tax: attribute(t, 'ImpuestoDR') ?? '',
      factor: attribute(t, 'TipoFactorDR') ?? '',
      rate: attribute(t, 'TasaOCuotaDR'),
      base: num(t, 'BaseDR'),
      amount: attribute(t, 'ImporteDR') === undefined ? undefined : num(t, 'ImporteDR'),
    });
  return [
    ...descendants(doc, ['pago20:ImpuestosDR', 'pago20:RetencionesDR', 'pago20:RetencionDR']).map(line('Retencion')),
    ...descendants(doc, ['pago20:ImpuestosDR', 'pago20:TrasladosDR', 'pago20:TrasladoDR']).map(line('Traslado')),
  ];
}

/** ImpuestosP as written. */
function writtenPaymentTaxes(pago: XmlElement): (TaxGroup & { baseText?: string; amountText?: string })[] {
  return [
    ...descendants(pago, ['pago20:ImpuestosP', 'pago20:RetencionesP', 'pago20:RetencionP']).map((t) => ({
      direction: 'Retencion' as const,
      tax: attribute(t, 'ImpuestoP') ?? '',
      factor: '',
      base: new Money(0),
      amount: num(t, 'ImporteP'),
      amountText: attribute(t, 'ImporteP'),
    })),
    ...descendants(pago, ['pago20:ImpuestosP', 'pago20:TrasladosP', 'pago20:TrasladoP']).map((t) => ({
      direction: 'Traslado' as const,
      tax: attribute(t, 'ImpuestoP') ?? '',
      factor: attribute(t, 'TipoFactorP') ?? '',
      rate: attribute(t, 'TasaOCuotaP'),
      base: num(t, 'BaseP'),
      amount: num(t, 'ImporteP'),
      baseText: attribute(t, 'BaseP'),
      amountText: attribute(t, 'ImporteP'),
    })),
  ];
}

function checkEnvelope(comprobante: XmlElement, out: CfdiFinding[]): void {
  for (const [name, satCode] of [
    ['SubTotal', 'CRP20103'],
    ['Total', 'CRP20110'],
  ] as const) {
    if (!num(comprobante, name).isZero()) out.push({ code: 'payment_cfdi_amount_not_zero', satCode, path: `@${name}`, message: `${name} of a type P CFDI must be 0.` });
  }
  if (attribute(comprobante, 'Moneda') !== 'XXX')
    out.push({ code: 'payment_cfdi_currency', satCode: 'CRP20104', path: '@Moneda', message: 'Moneda of a type P CFDI must be XXX.' });
  for (const [name, satCode] of ABSENT_IN_PAYMENT_CFDI) {
    if (attribute(comprobante, name) !== undefined)
      out.push({ code: 'payment_cfdi_attribute_not_allowed', satCode, path: `@${name}`, message: `A type P CFDI must not carry ${name}.` });
  }
}

/** One DoctoRelacionado: equivalence, balances, ObjetoImpDR against ImpuestosDR, ImporteDR limits. */
function checkDocument(doc: XmlElement, paymentCurrency: string, path: string, out: CfdiFinding[]): void {
  const sameCurrency = attribute(doc, 'MonedaDR') === paymentCurrency;
  const equivalence = attribute(doc, 'EquivalenciaDR');
  if (!sameCurrency && equivalence === undefined) {
    out.push({ code: 'equivalence_missing', satCode: 'CRP20237', path: `${path}/@EquivalenciaDR`, message: 'EquivalenciaDR is required when MonedaDR differs from MonedaP.' });
  }
  if (sameCurrency && equivalence !== '1') {
    out.push({ code: 'equivalence_not_one', satCode: 'CRP20238', path: `${path}/@EquivalenciaDR`, message: 'EquivalenciaDR must be "1" when MonedaDR equals MonedaP.' });
  }
  const previous = num(doc, 'ImpSaldoAnt');
  const paid = num(doc, 'ImpPagado');
  const outstanding = num(doc, 'ImpSaldoInsoluto');
  if (!previous.greaterThan(0))
    out.push({ code: 'previous_balance_not_positive', satCode: 'CRP20239', path: `${path}/@ImpSaldoAnt`, message: 'ImpSaldoAnt must be greater than 0.' });
  if (!paid.greaterThan(0)) out.push({ code: 'paid_amount_not_positive', satCode: 'CRP20241', path: `${path}/@ImpPagado`, message: 'ImpPagado must be greater than 0.' });
  const expected = previous.minus(paid);
  if (outstanding.isNegative() || !outstanding.equals(expected)) {
    out.push({
      code: 'outstanding_balance_mismatch',
      satCode: 'CRP20244',
      path: `${path}/@ImpSaldoInsoluto`,
      message: `ImpSaldoInsoluto must be ImpSaldoAnt − ImpPagado (${expected.toString()}) and not negative.`,
    });
  }
  const objeto = attribute(doc, 'ObjetoImpDR') ?? '';
  const taxes = child(doc, 'pago20:ImpuestosDR');
  if (objeto === '02' && !taxes) out.push({ code: 'related_taxes_missing', satCode: 'CRP20246', path: `${path}/ImpuestosDR`, message: 'ObjetoImpDR 02 needs ImpuestosDR.' });
  if (NOT_TAXED.includes(objeto) && taxes)
    out.push({ code: 'related_taxes_not_allowed', satCode: 'CRP20247', path: `${path}/ImpuestosDR`, message: `ObjetoImpDR ${objeto} must not carry ImpuestosDR.` });
  for (const [kind, satCode] of [
    ['Retencion', 'CRP20254'],
    ['Traslado', 'CRP20261'],
  ] as const) {
    const nodes = descendants(doc, ['pago20:ImpuestosDR', `pago20:${kind}${kind === 'Traslado' ? 's' : 'es'}DR`, `pago20:${kind}DR`]);
    nodes.forEach((t, j) => {
      const base = attribute(t, 'BaseDR') ?? '0';
      const rate = attribute(t, 'TasaOCuotaDR');
      const amount = attribute(t, 'ImporteDR');
      if (rate === undefined || amount === undefined) return;
      const limits = taxAmountLimits(new Money(base), written(base), new Money(rate), written(amount));
      if (!withinLimits(new Money(amount), limits)) {
        out.push({
          code: 'tax_amount_out_of_limits',
          satCode,
          path: `${path}/ImpuestosDR/${kind}DR[${j + 1}]/@ImporteDR`,
          message: `ImporteDR ${amount} is outside ${limits.low.toString()}–${limits.high.toString()} (BaseDR × TasaOCuotaDR).`,
        });
      }
    });
  }
}

/** One Pago: exchange rate, Monto against what its documents are paid, ImpuestosP against their taxes. */
function checkPayment(pago: XmlElement, path: string, out: CfdiFinding[]): PaymentForTotals {
  const currency = attribute(pago, 'MonedaP') ?? '';
  const rateText = attribute(pago, 'TipoCambioP');
  if (currency === 'MXN' && rateText !== '1')
    out.push({ code: 'payment_exchange_rate_not_one', satCode: 'CRP20215', path: `${path}/@TipoCambioP`, message: 'TipoCambioP must be "1" for MXN.' });
  if (currency !== 'MXN' && rateText === undefined)
    out.push({ code: 'payment_exchange_rate_missing', satCode: 'CRP20214', path: `${path}/@TipoCambioP`, message: `TipoCambioP is required for ${currency}.` });
  const amountText = attribute(pago, 'Monto') ?? '0';
  const amount = new Money(amountText);
  if (!amount.greaterThan(0)) out.push({ code: 'payment_amount_not_positive', satCode: 'CRP20218', path: `${path}/@Monto`, message: 'Monto must be greater than 0.' });

  let paidFloor = new Money(0);
  const exact: TaxLine[] = [];
  children(pago, 'pago20:DoctoRelacionado').forEach((doc, j) => {
    checkDocument(doc, currency, `${path}/DoctoRelacionado[${j + 1}]`, out);
    const sameCurrency = attribute(doc, 'MonedaDR') === currency;
    const equivalenceText = attribute(doc, 'EquivalenciaDR') ?? '1';
    const paidText = attribute(doc, 'ImpPagado') ?? '0';
    paidFloor = paidFloor.plus(paidAmountFloor(new Money(paidText), written(paidText), new Money(equivalenceText), written(equivalenceText), sameCurrency, written(amountText)));
    exact.push(...inPaymentCurrency(drLines(doc), new Money(equivalenceText)));
  });
  if (paidFloor.greaterThan(amount)) {
    out.push({
      code: 'payment_amount_below_paid',
      satCode: 'CRP20217',
      path: `${path}/@Monto`,
      message: `Monto ${amountText} is less than what its documents are paid, converted (${paidFloor.toString()}).`,
    });
  }

  const expected = new Map<string, { base: Decimal; amount: Decimal }>();
  for (const line of exact) {
    const sum = expected.get(groupKey(line)) ?? { base: new Money(0), amount: new Money(0) };
    expected.set(groupKey(line), { base: sum.base.plus(line.base), amount: sum.amount.plus(line.amount ?? 0) });
  }
  const taxes = writtenPaymentTaxes(pago);
  const seen = new Set<string>();
  for (const g of taxes) {
    const key = groupKey(g);
    seen.add(key);
    const sum = expected.get(key) ?? { base: new Money(0), amount: new Money(0) };
    const mismatch = (text: string | undefined, value: Decimal) => (text === undefined ? !value.isZero() : !matchesSum(new Money(text), written(text), value));
    if (g.direction === 'Retencion' && mismatch(g.amountText, sum.amount)) {
      out.push({
        code: 'payment_tax_mismatch',
        satCode: 'CRP20265',
        path: `${path}/ImpuestosP/RetencionP[${key}]/@ImporteP`,
        message: `ImporteP must be the sum of the documents' ${key} ImporteDR over EquivalenciaDR (${sum.amount.toString()}).`,
      });
    }
    if (g.direction === 'Traslado' && mismatch(g.baseText, sum.base)) {
      out.push({
        code: 'payment_tax_mismatch',
        satCode: g.factor === 'Exento' ? 'CRP20269' : 'CRP20268',
        path: `${path}/ImpuestosP/TrasladoP[${key}]/@BaseP`,
        message: `BaseP must be the sum of the documents' ${key} BaseDR over EquivalenciaDR (${sum.base.toString()}).`,
      });
    }
    if (g.direction === 'Traslado' && g.factor !== 'Exento' && mismatch(g.amountText, sum.amount)) {
      out.push({
        code: 'payment_tax_mismatch',
        satCode: 'CRP20274',
        path: `${path}/ImpuestosP/TrasladoP[${key}]/@ImporteP`,
        message: `ImporteP must be the sum of the documents' ${key} ImporteDR over EquivalenciaDR (${sum.amount.toString()}).`,
      });
    }
  }
  for (const key of expected.keys()) {
    if (seen.has(key)) continue;
    const satCode = key.startsWith('Retencion') ? 'CRP20265' : 'CRP20268';
    out.push({ code: 'payment_tax_mismatch', satCode, path: `${path}/ImpuestosP`, message: `ImpuestosP lacks the documents' ${key}.` });
  }
  return { exchangeRate: new Money(rateText ?? '1'), amount, taxes };
}

function checkTotals(pagos: XmlElement, payments: readonly PaymentForTotals[], out: CfdiFinding[]): void {
  const totales = child(pagos, 'pago20:Totales');
  const expected = paymentTotals(payments);
  const compare = (name: string, satCode: string, value: Decimal | undefined) => {
    const text = totales ? attribute(totales, name) : undefined;
    if (text === undefined && value === undefined) return;
    if (text !== undefined && value !== undefined && new Money(text).equals(value)) return;
    const should = value === undefined ? 'must be absent: no Pago carries that tax' : `must be ${writeTotal(value)} (ImpuestosP or Monto × TipoCambioP, summed and rounded)`;
    out.push({ code: 'payment_totals_mismatch', satCode, path: `Complemento/Pagos/Totales/@${name}`, message: `${name} ${should}.` });
  };
  for (const rule of PAYMENT_TOTAL_RULES) compare(rule.attribute, rule.satCode, expected.taxes.get(rule.attribute));
  compare('MontoTotalPagos', TOTAL_PAYMENTS_SAT_CODE, expected.totalPayments);
}

export function checkPagos20(comprobante: XmlElement): CfdiFinding[] {
  const out: CfdiFinding[] = [];
  if (attribute(comprobante, 'TipoDeComprobante') === 'P') checkEnvelope(comprobante, out);
  for (const pagos of descendants(comprobante, ['cfdi:Complemento', 'pago20:Pagos'])) {
    const payments = children(pagos, 'pago20:Pago').map((pago, i) => checkPayment(pago, `Complemento/Pagos/Pago[${i + 1}]`, out));
    checkTotals(pagos, payments, out);
  }
  return out;
}
