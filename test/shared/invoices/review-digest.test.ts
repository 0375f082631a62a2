import { expect } from 'chai';
import { dec } from '../../../shared/domain/money.js';
import { reviewDigest, type ReviewedInvoice, type ReviewedTicket } from '../../../shared/invoices/review-digest.js';

const ticket = (id: string, amount: string): ReviewedTicket => ({
  id,
  currency: 'MXN',
  concepts: [
    {
      description: 'Agua 1 L',
      quantity: '1',
      unit_price: amount,
      amount,
      discount: null,
      sat_product_service_key: '50202301',
      sat_unit_key: 'H87',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', amount: dec(amount).times('0.16').toFixed(2) }],
    },
  ],
});

const totals = (subtotal: string, withheld = '0') => {
  const s = dec(subtotal);
  const transferred = s.times('0.16').toDecimalPlaces(2);
  return { subtotal: s, discount: dec(0), transferred, withheld: dec(withheld), total: s.plus(transferred).minus(dec(withheld)) };
};

const customer = { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', tax_regime: '601', postal_code: '86991', cfdi_use: 'G03', email: 'compras@example.test' };

const base: ReviewedInvoice = { tickets: [ticket('tra_a', '10.00')], customer, totals: totals('10') };

describe('review digest (what the buyer reviewed, as one fingerprint)', () => {
  it('is the same for the same content, whatever the spelling of its amounts or the order of its keys', () => {
    const respelled: ReviewedInvoice = {
      totals: { ...totals('10.000000') },
      customer: { email: customer.email, cfdi_use: 'G03', postal_code: '86991', tax_regime: '601', name: customer.name, rfc: customer.rfc },
      tickets: [{ ...ticket('tra_a', '10.000000'), concepts: ticket('tra_a', '10').concepts.map((c) => ({ ...c, quantity: '1.000000' })) }],
    };
    expect(reviewDigest(respelled)).to.equal(reviewDigest(base));
    expect(reviewDigest(base)).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('changes with a ticket added or removed, their order, a concept, the customer or the totals', () => {
    const digests = [
      base,
      { ...base, tickets: [ticket('tra_a', '10.00'), ticket('tra_b', '7.00')], totals: totals('17') },
      { ...base, tickets: [ticket('tra_b', '7.00'), ticket('tra_a', '10.00')], totals: totals('17') },
      { ...base, tickets: [ticket('tra_a', '10.00'), ticket('tra_b', '7.00')], totals: totals('17.01') },
      { ...base, tickets: [{ ...ticket('tra_a', '10.00'), concepts: ticket('tra_a', '10.00').concepts.map((c) => ({ ...c, description: 'Agua 2 L' })) }] },
      { ...base, customer: { ...customer, cfdi_use: 'S01' } },
      { ...base, customer: { ...customer, tax_residence: 'USA' } },
      { ...base, totals: totals('10', '0.13') },
    ].map(reviewDigest);
    expect(new Set(digests).size).to.equal(digests.length);
  });
});
