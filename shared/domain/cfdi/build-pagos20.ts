/**
 * Builds the pago20:Pagos complement from the payments received: related documents with their share of the
 * invoice's taxes, each Pago's ImpuestosP and the MXN Totales, by the rules in pagos20-amounts.ts. Elements
 * and attributes in Pagos20.xsd's order.
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { writtenDecimals, type TaxGroup, type TaxLine } from './anexo20-amounts.js';
import type { CfdiPaidDocument, CfdiPayment } from './cfdi-input.js';
import {
  EQUIVALENCE_DECIMALS,
  PAYMENT_EXCHANGE_RATE_DECIMALS,
  PAYMENT_TAX_DECIMALS,
  PAYMENT_TOTAL_RULES,
  inPaymentCurrency,
  paidTaxLines,
  paymentTaxes,
  paymentTotals,
  writeTotal,
  type PaymentForTotals,
} from './pagos20-amounts.js';
import { element, type XmlElement } from './xml-element.js';

export const PAGOS20_NAMESPACE = 'http://www.sat.gob.mx/Pagos20';
export const PAGOS20_SCHEMA_LOCATION = `${PAGOS20_NAMESPACE} http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd`;

/** A value with its own decimals, never fewer than `minimum`, never in exponent notation. */
function write(value: Decimal, minimum = 0): string {
  return value.toFixed(writtenDecimals(value, minimum));
}

function drTaxNode(name: 'pago20:TrasladoDR' | 'pago20:RetencionDR', t: TaxLine, decimals: number): XmlElement {
  return element(name, {
    BaseDR: write(t.base, decimals),
    ImpuestoDR: t.tax,
    TipoFactorDR: t.factor,
    TasaOCuotaDR: t.rate,
    ImporteDR: t.amount === undefined ? undefined : write(t.amount, decimals),
  });
}

interface BuiltDocument {
  node: XmlElement;
  /** Its tax lines in the payment's currency, for ImpuestosP. */
  taxes: TaxLine[];
}

/** EquivalenciaDR as written: 1 for the payment's own currency. */
function equivalenceOf(doc: CfdiPaidDocument, payment: CfdiPayment): Decimal {
  if (doc.currency === payment.currency) return new Money(1);
  if (!doc.equivalence) throw new RangeError(`EquivalenciaDR is required for document ${doc.uuid} (${doc.currency}) paid in ${payment.currency}`);
  return new Money(doc.equivalence).toDecimalPlaces(EQUIVALENCE_DECIMALS);
}

/** TipoCambioP as written: 1 for MXN. */
function exchangeRateOf(payment: CfdiPayment): Decimal {
  if (payment.currency === 'MXN') return new Money(1);
  if (!payment.exchangeRate) throw new RangeError(`TipoCambioP is required for a payment in ${payment.currency}`);
  return new Money(payment.exchangeRate).toDecimalPlaces(PAYMENT_EXCHANGE_RATE_DECIMALS);
}

function documentNode(doc: CfdiPaidDocument, payment: CfdiPayment): BuiltDocument {
  const d = doc.currencyDecimals;
  const equivalence = equivalenceOf(doc, payment);
  const previous = new Money(doc.previousBalance).toDecimalPlaces(d);
  const paid = new Money(doc.amountPaid).toDecimalPlaces(d);
  const outstanding = previous.minus(paid);
  const lines = doc.invoiceTaxes ? paidTaxLines(doc.invoiceTaxes.total, doc.invoiceTaxes.taxes, paid, d) : [];
  const withholdings = lines.filter((l) => l.direction === 'Retencion');
  const transfers = lines.filter((l) => l.direction === 'Traslado');
  const taxChildren: XmlElement[] = [];
  if (withholdings.length > 0)
    taxChildren.push(
      element(
        'pago20:RetencionesDR',
        {},
        withholdings.map((l) => drTaxNode('pago20:RetencionDR', l, d)),
      ),
    );
  if (transfers.length > 0)
    taxChildren.push(
      element(
        'pago20:TrasladosDR',
        {},
        transfers.map((l) => drTaxNode('pago20:TrasladoDR', l, d)),
      ),
    );
  const node = element(
    'pago20:DoctoRelacionado',
    {
      IdDocumento: doc.uuid,
      Serie: doc.series,
      Folio: doc.folio,
      MonedaDR: doc.currency,
      EquivalenciaDR: write(equivalence),
      NumParcialidad: String(doc.installment),
      ImpSaldoAnt: previous.toFixed(d),
      ImpPagado: paid.toFixed(d),
      // SAT's sample writes a settled balance as 0; any other balance carries the currency's decimals.
      ImpSaldoInsoluto: outstanding.isZero() ? '0' : outstanding.toFixed(d),
      ObjetoImpDR: doc.taxObject,
    },
    taxChildren.length > 0 ? [element('pago20:ImpuestosDR', {}, taxChildren)] : [],
  );
  return { node, taxes: inPaymentCurrency(lines, equivalence) };
}

function paymentTaxesNode(groups: readonly TaxGroup[]): XmlElement[] {
  const fixed = (value: Decimal) => value.toFixed(PAYMENT_TAX_DECIMALS);
  const withholdings = groups.filter((g) => g.direction === 'Retencion');
  const transfers = groups.filter((g) => g.direction === 'Traslado');
  const taxChildren: XmlElement[] = [];
  if (withholdings.length > 0) {
    taxChildren.push(
      element(
        'pago20:RetencionesP',
        {},
        withholdings.map((g) => element('pago20:RetencionP', { ImpuestoP: g.tax, ImporteP: fixed(g.amount) })),
      ),
    );
  }
  if (transfers.length > 0) {
    taxChildren.push(
      element(
        'pago20:TrasladosP',
        {},
        transfers.map((g) => {
          const exempt = g.factor === 'Exento';
          return element('pago20:TrasladoP', {
            BaseP: fixed(g.base),
            ImpuestoP: g.tax,
            TipoFactorP: g.factor,
            TasaOCuotaP: exempt ? undefined : g.rate,
            ImporteP: exempt ? undefined : fixed(g.amount),
          });
        }),
      ),
    );
  }
  return taxChildren.length > 0 ? [element('pago20:ImpuestosP', {}, taxChildren)] : [];
}

function paymentNode(payment: CfdiPayment): { node: XmlElement; totals: PaymentForTotals } {
  const exchangeRate = exchangeRateOf(payment);
  const amount = new Money(payment.amount).toDecimalPlaces(payment.currencyDecimals);
  const documents = payment.documents.map((doc) => documentNode(doc, payment));
  const taxes = paymentTaxes(documents.flatMap((d) => d.taxes));
  const node = element(
    'pago20:Pago',
    {
      FechaPago: payment.paidAt,
      FormaDePagoP: payment.form,
      MonedaP: payment.currency,
      TipoCambioP: write(exchangeRate),
      Monto: amount.toFixed(payment.currencyDecimals),
      NumOperacion: payment.operationNumber,
      RfcEmisorCtaOrd: payment.payerBankRfc,
      NomBancoOrdExt: payment.payerForeignBankName,
      CtaOrdenante: payment.payerAccount,
      RfcEmisorCtaBen: payment.payeeBankRfc,
      CtaBeneficiario: payment.payeeAccount,
    },
    [...documents.map((d) => d.node), ...paymentTaxesNode(taxes)],
  );
  return { node, totals: { exchangeRate, amount, taxes } };
}

export function buildPagos20(payments: readonly CfdiPayment[]): XmlElement {
  const built = payments.map(paymentNode);
  const totals = paymentTotals(built.map((b) => b.totals));
  const totalAttributes: Record<string, string | undefined> = {};
  for (const rule of PAYMENT_TOTAL_RULES) {
    const value = totals.taxes.get(rule.attribute);
    totalAttributes[rule.attribute] = value === undefined ? undefined : writeTotal(value);
  }
  totalAttributes.MontoTotalPagos = writeTotal(totals.totalPayments);
  return element('pago20:Pagos', { Version: '2.0' }, [element('pago20:Totales', totalAttributes), ...built.map((b) => b.node)]);
}
