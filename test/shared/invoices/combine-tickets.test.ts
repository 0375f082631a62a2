import { expect } from 'chai';
import { combineTickets, ticketMismatches, type Ticket } from '../../../shared/invoices/combine-tickets.js';
import type { QrTransactionRecord, QrTransactionRow } from '../../../shared/repositories/qr-transactions.js';

function ticket(id: string, amount: string, form: string, overrides: Partial<QrTransactionRow> = {}, concepts = 1): QrTransactionRecord {
  return {
    transaction: {
      id,
      mode: 'development',
      currency: 'MXN',
      exchange_rate: null,
      sat_payment_method: 'PUE',
      sat_payment_form: form,
      export_code: '01',
      type_of_receipt: 'I',
      related_cfdis: null,
      global_info: null,
      amount,
      subtotal: amount,
      ...overrides,
    } as QrTransactionRow,
    concepts: Array.from({ length: concepts }, (_, position) => ({
      transaction_id: id,
      position,
      sku: null,
      description: `${id}-${position}`,
      amount: '1.000000',
      quantity: '1.000000',
      discount: null,
      unit_price: '1.000000',
      sat_unit_key: 'H87',
      sat_product_service_key: '01010101',
      sat_tax_object_key: '02',
    })),
    taxes: Array.from({ length: concepts }, (_, position) => ({
      transaction_id: id,
      concept_position: position,
      position: 0,
      type: 'Traslado' as const,
      tax: '002',
      factor: 'Tasa' as const,
      rate: '0.160000',
      taxable_base: '1.000000',
      amount: '0.160000',
    })),
    storeName: 'Store',
    issuerRfc: 'EKU9003173C9',
    issuerName: `Issuer of ${id}`,
  };
}
const of = (record: QrTransactionRecord, issuerId = 'issuer-1'): Ticket => ({ record, issuerId });

describe('combineTickets / ticketMismatches (several tickets in one CFDI)', () => {
  it('puts every ticket’s concepts in order under the first header, each tax still on its own concept, and sums amount and subtotal', () => {
    const combined = combineTickets([ticket('a', '10', '01', {}, 2), ticket('b', '5.5', '01', {}, 1), ticket('c', '1', '01', {}, 2)]);
    expect(combined.transaction.id).to.equal('a');
    expect(combined.concepts.map((c) => [c.position, c.description])).to.deep.equal([
      [0, 'a-0'],
      [1, 'a-1'],
      [2, 'b-0'],
      [3, 'c-0'],
      [4, 'c-1'],
    ]);
    expect(combined.taxes.map((t) => t.concept_position)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(combined.transaction.amount).to.equal('16.500000');
    expect(combined.transaction.subtotal).to.equal('16.500000');
  });

  it('takes the payment form of the ticket with the greatest amount (the first one on a tie)', () => {
    expect(combineTickets([ticket('a', '10', '01'), ticket('b', '10.000001', '04')]).transaction.sat_payment_form).to.equal('04');
    expect(combineTickets([ticket('a', '10', '01'), ticket('b', '10', '04')]).transaction.sat_payment_form).to.equal('01');
  });

  it('leaves a single ticket as it is', () => {
    const only = ticket('a', '10', '01');
    expect(combineTickets([only])).to.equal(only);
  });

  it('names each further ticket that cannot share the first one’s CFDI', () => {
    const first = ticket('a', '10', '01');
    const found = ticketMismatches([
      of(first),
      of(ticket('b', '1', '01'), 'issuer-2'),
      of(ticket('c', '1', '01', { mode: 'production' })),
      of(ticket('d', '1', '01', { currency: 'USD', exchange_rate: '17.000000' })),
      of(ticket('e', '1', '01', { sat_payment_method: 'PPD' })),
      of(ticket('f', '1', '01', { export_code: '02' })),
      of(ticket('g', '1', '01', { type_of_receipt: 'E' })),
      of(ticket('h', '1', '01', { related_cfdis: { tipo_relacion: '04', cfdis: [] } as unknown as QrTransactionRow['related_cfdis'] })),
      of(ticket('a', '10', '01')),
      of(ticket('i', '1', '04')),
    ]);
    expect(found.map((m) => `${m.index}:${m.code}`)).to.deep.equal([
      '1:other_issuer',
      '2:other_mode',
      '3:currency_differs',
      '4:payment_method_differs',
      '5:export_code_differs',
      '6:receipt_type_differs',
      '7:has_own_cfdi_nodes',
      '8:duplicate_ticket',
    ]);
  });

  it('compares exchange rates as numbers, not as text', () => {
    const usd = (id: string, rate: string) => of(ticket(id, '1', '01', { currency: 'USD', exchange_rate: rate }));
    expect(ticketMismatches([usd('a', '17.5'), usd('b', '17.500000')])).to.deep.equal([]);
    expect(ticketMismatches([usd('a', '17.5'), usd('b', '17.6')]).map((m) => m.code)).to.deep.equal(['exchange_rate_differs']);
  });
});
