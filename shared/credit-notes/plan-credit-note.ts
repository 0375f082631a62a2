/**
 * A credit note (CFDI type E) for parts of stamped invoices. Each credited invoice gives one concept per
 * concept it had, scaled by credited ÷ invoiced total: SAT's key for returns, discounts and bonuses
 * (84111506, unit ACT), the original tax object, and the same taxes at the same rates on the scaled base.
 * Rounding each scaled amount to the currency's decimals can move the total by a few cents from what was
 * asked; the credit note's real total is what is recorded against each invoice.
 */
import type { CfdiConceptInput, CfdiInput, CfdiTaxInput } from '../domain/cfdi/cfdi-input.js';
import type { ErrorDetail } from '../platform/errors.js';
import { dec, Money } from '../domain/money.js';
import type { InvoicePdfData, InvoicePdfTax } from '../pdf/invoice-pdf-data.js';
import type { Decimal } from 'decimal.js';

export interface CreditedInvoice {
  uuid: string;
  /** The stamped invoice as read from its XML. */
  data: InvoicePdfData;
  /** What is asked to credit, taxes included. */
  amount: Decimal;
  /** Already credited by live credit notes. */
  alreadyCredited: Decimal;
}

/** The document to build, without the folio and date it gets when sealed. */
export type CreditNoteDocument = Omit<CfdiInput, 'series' | 'folio' | 'issuedLocal'>;

export type CreditNotePlan = { ok: true; document: CreditNoteDocument; allocations: { uuid: string; amount: Decimal }[] } | { ok: false; details: ErrorDetail[] };

export const CREDIT_PRODUCT_KEY = '84111506';
export const CREDIT_UNIT_KEY = 'ACT';
const GENERIC_RFC = 'XAXX010101000';

function scaledTax(tax: InvoicePdfTax, type: CfdiTaxInput['type'], ratio: Decimal, cd: number): CfdiTaxInput {
  const base = dec(tax.base ?? '0')
    .times(ratio)
    .toDecimalPlaces(cd);
  const factor = tax.factor ?? 'Tasa';
  if (factor === 'Exento') return { type, tax: tax.tax.code, factor, base };
  // A Cuota is an amount per unit: it scales with the credited share, not with the base.
  const amount =
    factor === 'Cuota'
      ? dec(tax.amount ?? '0')
          .times(ratio)
          .toDecimalPlaces(cd)
      : base.times(tax.rate ?? '0').toDecimalPlaces(cd);
  return { type, tax: tax.tax.code, factor, rate: tax.rate, base, amount };
}

/** The credited concepts and the credit note's real total for one invoice. */
function creditedConcepts(invoice: CreditedInvoice, reason: string, cd: number): { concepts: CfdiConceptInput[]; total: Decimal } {
  const ratio = invoice.amount.div(invoice.data.total);
  const concepts: CfdiConceptInput[] = [];
  let total = new Money(0);
  for (const c of invoice.data.concepts) {
    const base = dec(c.amount)
      .minus(c.discount ?? '0')
      .times(ratio)
      .toDecimalPlaces(cd);
    if (base.isZero()) continue;
    const taxes =
      c.taxObject.code === '02' ? [...c.transfers.map((t) => scaledTax(t, 'Traslado', ratio, cd)), ...c.withholdings.map((t) => scaledTax(t, 'Retencion', ratio, cd))] : [];
    total = taxes.reduce((sum, t) => (t.amount ? (t.type === 'Traslado' ? sum.plus(t.amount) : sum.minus(t.amount)) : sum), total.plus(base));
    concepts.push({
      productServiceKey: CREDIT_PRODUCT_KEY,
      quantity: new Money(1),
      unitKey: CREDIT_UNIT_KEY,
      description: `${reason}: ${c.description}`.slice(0, 1000),
      unitPrice: base,
      amount: base,
      taxObject: c.taxObject.code,
      taxes,
    });
  }
  return { concepts, total };
}

export function planCreditNote(
  invoices: CreditedInvoice[],
  payment: { form: string },
  currencyDecimals: (currency: string) => number | undefined,
  reason = 'Devolución, descuento o bonificación',
): CreditNotePlan {
  const details: ErrorDetail[] = [];
  const first = invoices[0]!.data;
  invoices.forEach((invoice, i) => {
    const field = `related[${i}]`;
    const d = invoice.data;
    if (d.receiptType.code !== 'I')
      details.push({ field: `${field}.uuid`, code: 'not_an_invoice', message: `${invoice.uuid} is a CFDI of type ${d.receiptType.code}; only invoices (I) are credited.` });
    if (d.issuer.rfc !== first.issuer.rfc) details.push({ field: `${field}.uuid`, code: 'other_issuer', message: 'Every credited invoice must have the same issuer.' });
    if (d.receiver.rfc !== first.receiver.rfc) details.push({ field: `${field}.uuid`, code: 'other_receptor', message: 'Every credited invoice must have the same receptor.' });
    if (d.currency.code !== first.currency.code) details.push({ field: `${field}.uuid`, code: 'other_currency', message: 'Every credited invoice must be in the same currency.' });
    if (invoice.alreadyCredited.plus(invoice.amount).greaterThan(d.total)) {
      details.push({
        field: `${field}.amount`,
        code: 'exceeds_invoice',
        message: `Invoice ${invoice.uuid} totals ${d.total}; ${invoice.alreadyCredited.toFixed(2)} is already credited, so at most ${dec(d.total).minus(invoice.alreadyCredited).toFixed(2)} can be.`,
      });
    }
  });
  if (payment.form === '99')
    details.push({ field: 'sat_payment_form', code: 'not_allowed', message: 'A credit note is paid back with a known form (99 "por definir" goes only with PPD).' });
  if (details.length > 0) return { ok: false, details };

  const cd = currencyDecimals(first.currency.code) ?? 2;
  const concepts: CfdiConceptInput[] = [];
  const allocations: { uuid: string; amount: Decimal }[] = [];
  invoices.forEach((invoice, i) => {
    const credited = creditedConcepts(invoice, reason, cd);
    concepts.push(...credited.concepts);
    allocations.push({ uuid: invoice.uuid, amount: credited.total });
    // Rounding the scaled parts may add a cent or two: the real total must fit too.
    if (invoice.alreadyCredited.plus(credited.total).greaterThan(invoice.data.total)) {
      details.push({
        field: `related[${i}].amount`,
        code: 'exceeds_invoice',
        message: `Rounded to the currency, this credits ${credited.total.toFixed(cd)}, more than is left of invoice ${invoice.uuid}.`,
      });
    }
  });
  if (details.length > 0) return { ok: false, details };
  const receptor = first.receiver;
  return {
    ok: true,
    allocations,
    document: {
      type: 'E',
      paymentForm: payment.form,
      paymentMethod: 'PUE',
      currency: first.currency.code,
      currencyDecimals: cd,
      exchangeRate: first.exchangeRate ? new Money(first.exchangeRate) : undefined,
      exportCode: '01',
      expeditionPlace: first.placeOfIssue,
      relatedCfdis: { relationType: '01', uuids: invoices.map((i) => i.uuid) },
      issuer: { rfc: first.issuer.rfc, name: first.issuer.name, taxRegime: first.issuer.taxRegime.code },
      receptor: {
        rfc: receptor.rfc,
        name: receptor.name,
        taxRegime: receptor.taxRegime.code,
        postalCode: receptor.taxZipCode,
        // G02: returns, discounts or bonuses; público en general keeps S01.
        cfdiUse: receptor.rfc === GENERIC_RFC ? 'S01' : 'G02',
        taxResidence: receptor.foreignResidence?.code,
      },
      concepts,
    },
  };
}
