/**
 * The global invoice of a merchant's unclaimed sales of one period, as SAT's guide for público en general
 * asks: receptor XAXX010101000 "PUBLICO EN GENERAL", regime 616, use S01, its fiscal zip the place of
 * issue; InformacionGlobal with the period; one concept per ticket (ClaveProdServ 01010101, unit ACT,
 * quantity 1, the ticket's folio as NoIdentificacion) carrying the ticket's amount, discount and taxes;
 * one document per payment form and method, at most 5,000 concepts each. Always in pesos: a sale in
 * another currency enters at its own exchange rate. Each tax is recomputed on the ticket's summed base, so
 * a ticket can differ by a cent from the sum of its concepts' rounded taxes; Anexo 20 checks the former.
 */
import type { Decimal } from 'decimal.js';
import type { CfdiConceptInput, CfdiInput, CfdiTaxInput } from '../domain/cfdi/cfdi-input.js';
import { dec, Money } from '../domain/money.js';
import type { QrConceptRow, QrConceptTaxRow } from '../repositories/qr-transactions.js';
import { CFDI_TEXT, cfdiTextProblem } from '../sat/cfdi-text-rules.js';
import type { GlobalPeriod } from './global-period.js';

export const MAX_CONCEPTS = 5000;
export const GENERIC_RECEPTOR = { rfc: 'XAXX010101000', name: 'PUBLICO EN GENERAL', taxRegime: '616', cfdiUse: 'S01' } as const;

export interface UnclaimedTicket {
  id: string;
  saleId: string;
  paymentForm: string;
  paymentMethod: string;
  currency: string;
  exchangeRate: string | null;
  concepts: QrConceptRow[];
  taxes: QrConceptTaxRow[];
}

export interface GlobalInvoicePart {
  paymentForm: string;
  paymentMethod: string;
  part: number;
  ticketIds: string[];
  input: Omit<CfdiInput, 'series' | 'folio' | 'issuedLocal'>;
}

const MXN_DECIMALS = 2;

function pesos(value: string, rate: Decimal): Decimal {
  return dec(value).times(rate).toDecimalPlaces(MXN_DECIMALS);
}

/** The ticket's NoIdentificacion: its sale id. */
function ticketSku(saleId: string): string {
  return saleId.slice(0, 100);
}

/**
 * Why a sale can never be a ticket of a global invoice, or undefined: its sale_id (stored before the door
 * refused such ids) holds what NoIdentificacion cannot, a character XML cannot hold (a barcode scanner's GS,
 * U+001D) or "|". Such a sale is left out and named, so the period's other sales are still reported.
 */
export function unreportableReason(saleId: string): string | undefined {
  const problem = cfdiTextProblem(CFDI_TEXT.saleId, ticketSku(saleId));
  return problem === undefined ? undefined : `sale_id ${problem}: it would be the ticket's NoIdentificacion in the global invoice`;
}

/** The ticket as one concept: amounts summed, taxes grouped by type, tax, factor and rate. */
export function ticketConcept(ticket: UnclaimedTicket): CfdiConceptInput {
  const rate = dec(ticket.currency === 'MXN' ? '1' : (ticket.exchangeRate ?? '1'));
  const amount = ticket.concepts.reduce((sum, c) => sum.plus(pesos(c.amount, rate)), new Money(0));
  const discount = ticket.concepts.reduce((sum, c) => sum.plus(c.discount === null ? 0 : pesos(c.discount, rate)), new Money(0));
  const groups = new Map<string, { tax: QrConceptTaxRow; base: Decimal; cuota: Decimal }>();
  for (const t of ticket.taxes) {
    const key = [t.type, t.tax, t.factor, t.rate ?? ''].join('|');
    const group = groups.get(key) ?? { tax: t, base: new Money(0), cuota: new Money(0) };
    group.base = group.base.plus(pesos(t.taxable_base, rate));
    if (t.factor === 'Cuota' && t.amount !== null) group.cuota = group.cuota.plus(pesos(t.amount, rate));
    groups.set(key, group);
  }
  const taxes: CfdiTaxInput[] = [...groups.values()].map(({ tax, base, cuota }) => ({
    type: tax.type,
    tax: tax.tax,
    factor: tax.factor,
    rate: tax.rate ?? undefined,
    base,
    amount: tax.factor === 'Exento' ? undefined : tax.factor === 'Cuota' ? cuota : base.times(tax.rate ?? '0').toDecimalPlaces(MXN_DECIMALS),
  }));
  return {
    productServiceKey: '01010101',
    sku: ticketSku(ticket.saleId),
    quantity: new Money(1),
    unitKey: 'ACT',
    description: 'Venta',
    unitPrice: amount,
    amount,
    discount: discount.isZero() ? undefined : discount,
    taxObject: taxes.length > 0 ? '02' : '01',
    taxes,
  };
}

export function planGlobalInvoices(input: {
  tickets: UnclaimedTicket[];
  period: GlobalPeriod;
  issuer: { rfc: string; name: string; taxRegime: string };
  expeditionPlace: string;
}): GlobalInvoicePart[] {
  const groups = new Map<string, UnclaimedTicket[]>();
  for (const ticket of [...input.tickets].sort((a, b) => a.saleId.localeCompare(b.saleId) || a.id.localeCompare(b.id))) {
    const key = `${ticket.paymentForm}|${ticket.paymentMethod}`;
    const group = groups.get(key);
    if (group) group.push(ticket);
    else groups.set(key, [ticket]);
  }
  const parts: GlobalInvoicePart[] = [];
  for (const [key, tickets] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const [paymentForm = '', paymentMethod = ''] = key.split('|');
    for (let start = 0, part = 1; start < tickets.length; start += MAX_CONCEPTS, part++) {
      const chunk = tickets.slice(start, start + MAX_CONCEPTS);
      parts.push({
        paymentForm,
        paymentMethod,
        part,
        ticketIds: chunk.map((t) => t.id),
        input: {
          type: 'I',
          paymentForm,
          paymentMethod,
          currency: 'MXN',
          currencyDecimals: MXN_DECIMALS,
          exportCode: '01',
          expeditionPlace: input.expeditionPlace,
          globalInfo: { periodicity: input.period.periodicity, months: input.period.months, year: input.period.year },
          issuer: input.issuer,
          receptor: { ...GENERIC_RECEPTOR, postalCode: input.expeditionPlace },
          concepts: chunk.map(ticketConcept),
        },
      });
    }
  }
  return parts;
}
