import type { Decimal } from 'decimal.js';
import type { CfdiPaidDocument, CfdiPayment, CfdiPaymentInput, PaidInvoiceTax } from '../../../../shared/domain/cfdi/cfdi-input.js';
import { Money } from '../../../../shared/domain/money.js';
import { random as mulberry32 } from '../../../fixtures/cfdi/generate-cfdi-input.js';

/** The corpus's own stream of numbers for a seed (apart from the invoice corpus's). */
const random = (seed: number) => mulberry32(seed * 7919 + 17);

type Variant = 'iva16' | 'iva8' | 'iva0' | 'exento' | 'iva16+exento' | 'honorarios' | 'resico' | 'ieps+iva16';
const VARIANTS: readonly Variant[] = ['iva16', 'iva8', 'iva0', 'exento', 'iva16+exento', 'honorarios', 'resico', 'ieps+iva16'];
/** MXN per USD, with 1 to 6 decimals as banks quote them. */
const RATES = ['17.4521', '18.093715', '16.9', '19.25'];

const transfer = (tax: string, rate: string | undefined, base: Decimal): PaidInvoiceTax => ({ type: 'Traslado', tax, factor: rate === undefined ? 'Exento' : 'Tasa', rate, base });
const withholding = (tax: string, rate: string, base: Decimal): PaidInvoiceTax => ({ type: 'Retencion', tax, factor: 'Tasa', rate, base });

/** An invoice's taxes on `subtotal` as its concepts state them (some split in two lines of the same tax). */
function invoiceTaxes(variant: Variant, subtotal: Decimal, part: Decimal): PaidInvoiceTax[] {
  const rest = subtotal.minus(part);
  switch (variant) {
    case 'iva16':
      return [transfer('002', '0.160000', part), transfer('002', '0.160000', rest)];
    case 'iva8':
      return [transfer('002', '0.080000', subtotal)];
    case 'iva0':
      return [transfer('002', '0.000000', subtotal)];
    case 'exento':
      return [transfer('002', undefined, subtotal)];
    case 'iva16+exento':
      return [transfer('002', '0.160000', part), transfer('002', undefined, rest)];
    // Professional fees paid by a company: ISR 10 % and two thirds of the IVA withheld.
    case 'honorarios':
      return [transfer('002', '0.160000', subtotal), withholding('001', '0.100000', subtotal), withholding('002', '0.106667', subtotal)];
    case 'resico':
      return [transfer('002', '0.160000', subtotal), withholding('001', '0.012500', subtotal)];
    case 'ieps+iva16':
      return [transfer('003', '0.080000', subtotal), transfer('002', '0.160000', subtotal)];
  }
}

function invoiceTotal(subtotal: Decimal, taxes: readonly PaidInvoiceTax[]): Decimal {
  return taxes.reduce((total, t) => {
    if (t.rate === undefined) return total;
    const amount = t.base.times(t.rate).toDecimalPlaces(2);
    return t.type === 'Traslado' ? total.plus(amount) : total.minus(amount);
  }, subtotal);
}

function uuid(seed: number, k: number, j: number): string {
  const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');
  return `${hex(seed, 8)}-${hex(k, 4)}-4${hex(j, 3)}-A${hex(seed * 31 + j, 3).slice(-3)}-${hex(seed * 1_000_003 + k * 101 + j, 12).slice(-12)}`;
}

/**
 * A valid type P input for corpus tests: one or two payments in MXN or USD, each paying one to three PPD
 * invoices in its own currency or the other (EquivalenciaDR), partial and final installments, invoices with
 * IVA 16/8/0 %, exempt, IEPS, ISR and IVA withholdings, or no taxes (ObjetoImpDR 01).
 */
export function generatePaymentInput(seed: number): CfdiPaymentInput {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const money = (max: number) => new Money(Math.floor(next() * max * 100) + 100).div(100);
  const payments: CfdiPayment[] = [];
  const paymentCount = seed % 4 === 3 ? 2 : 1;
  for (let k = 0; k < paymentCount; k++) {
    const currency = (seed + k) % 3 === 1 ? 'USD' : 'MXN';
    const rate = new Money(pick(RATES));
    const documents: CfdiPaidDocument[] = [];
    let paidInPaymentCurrency = new Money(0);
    const documentCount = 1 + Math.floor(next() * 3);
    for (let j = 0; j < documentCount; j++) {
      const docCurrency = next() < 0.3 ? (currency === 'USD' ? 'MXN' : 'USD') : currency;
      const subtotal = money(docCurrency === 'USD' ? 5000 : 80_000);
      const taxed = next() < 0.8;
      const taxes = taxed ? invoiceTaxes(pick(VARIANTS), subtotal, subtotal.times(pick(['0.5', '0.3', '0.77'])).toDecimalPlaces(2)) : [];
      const total = invoiceTotal(subtotal, taxes);
      const installment = 1 + Math.floor(next() * 3);
      const previousBalance = installment === 1 ? total : total.times(pick(['0.5', '0.75', '0.3333'])).toDecimalPlaces(2);
      const amountPaid = next() < 0.45 ? previousBalance : previousBalance.times(pick(['0.25', '0.5', '0.6123'])).toDecimalPlaces(2);
      // Units of the document's currency per unit of the payment's.
      const equivalence = docCurrency === currency ? undefined : docCurrency === 'MXN' ? rate : new Money(1).div(rate).toDecimalPlaces(10);
      paidInPaymentCurrency = paidInPaymentCurrency.plus(amountPaid.div(equivalence ?? 1));
      documents.push({
        uuid: uuid(seed, k, j),
        series: next() < 0.6 ? 'F' : undefined,
        folio: next() < 0.8 ? String(1000 + seed * 10 + j) : undefined,
        currency: docCurrency,
        currencyDecimals: 2,
        equivalence,
        installment,
        previousBalance,
        amountPaid,
        taxObject: taxed ? '02' : '01',
        invoiceTaxes: taxed ? { total, taxes } : undefined,
      });
    }
    const transferPayment = next() < 0.6;
    payments.push({
      paidAt: `2026-11-${String(1 + (seed % 20)).padStart(2, '0')}T${String(9 + k).padStart(2, '0')}:${String(seed % 60).padStart(2, '0')}:00`,
      form: transferPayment ? '03' : '01',
      currency,
      currencyDecimals: 2,
      exchangeRate: currency === 'USD' ? rate : undefined,
      amount: paidInPaymentCurrency.toDecimalPlaces(2, Money.ROUND_UP),
      operationNumber: transferPayment ? `SPEI${seed}${k}` : undefined,
      payerBankRfc: transferPayment ? 'BMI9704113PA' : undefined,
      payerAccount: transferPayment ? '0001970000' : undefined,
      payeeBankRfc: transferPayment ? 'BBA830831LJ2' : undefined,
      payeeAccount: transferPayment ? '0198005000' : undefined,
      documents,
    });
  }
  const receptor = pick([
    { rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI', taxRegime: '603', postalCode: '54700' },
    { rfc: 'CACX7605101P8', name: 'XOCHILT CASAS CHAVEZ', taxRegime: '612', postalCode: '36257' },
    { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', taxRegime: '601', postalCode: '86991' },
  ]);
  return {
    type: 'P',
    series: 'P',
    folio: String(seed + 1),
    issuedLocal: `2026-11-${String(1 + (seed % 20)).padStart(2, '0')}T18:${String(seed % 60).padStart(2, '0')}:05`,
    expeditionPlace: '42501',
    issuer: { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', taxRegime: '601' },
    receptor,
    payments,
  };
}
