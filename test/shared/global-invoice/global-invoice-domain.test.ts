import { expect } from 'chai';
import { buildCfdi } from '../../../shared/domain/cfdi/build-cfdi.js';
import { checkCfdiAmounts } from '../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { capExpiry, globalPeriod, globalPeriodEndingAt } from '../../../shared/global-invoice/global-period.js';
import { MAX_CONCEPTS, planGlobalInvoices, type UnclaimedTicket } from '../../../shared/global-invoice/plan-global-invoice.js';

const mx = (local: string) => new Date(`${local}-06:00`);
const iso = (d: Date) => d.toISOString();

function ticket(i: number, overrides: Partial<UnclaimedTicket> = {}): UnclaimedTicket {
  return {
    id: `tra_${i}`,
    saleId: `T-${String(i).padStart(6, '0')}`,
    paymentForm: '01',
    paymentMethod: 'PUE',
    currency: 'MXN',
    exchangeRate: null,
    concepts: [
      {
        transaction_id: `tra_${i}`,
        position: 0,
        sku: null,
        description: 'Gasolina',
        amount: '215.000000',
        quantity: '10.000000',
        discount: null,
        unit_price: '21.500000',
        sat_unit_key: 'LTR',
        sat_product_service_key: '15101514',
        sat_tax_object_key: '02',
      },
      {
        transaction_id: `tra_${i}`,
        position: 1,
        sku: null,
        description: 'Agua',
        amount: '37.330000',
        quantity: '2.000000',
        discount: '1.000000',
        unit_price: '18.665000',
        sat_unit_key: 'H87',
        sat_product_service_key: '50202301',
        sat_tax_object_key: '02',
      },
      {
        transaction_id: `tra_${i}`,
        position: 2,
        sku: null,
        description: 'Lavado',
        amount: '10.000000',
        quantity: '1.000000',
        discount: null,
        unit_price: '10.000000',
        sat_unit_key: 'E48',
        sat_product_service_key: '01010101',
        sat_tax_object_key: '01',
      },
    ],
    taxes: [
      {
        transaction_id: `tra_${i}`,
        concept_position: 0,
        position: 0,
        type: 'Traslado',
        tax: '002',
        factor: 'Tasa',
        rate: '0.160000',
        taxable_base: '215.000000',
        amount: '34.400000',
      },
      {
        transaction_id: `tra_${i}`,
        concept_position: 1,
        position: 0,
        type: 'Traslado',
        tax: '002',
        factor: 'Tasa',
        rate: '0.160000',
        taxable_base: '36.330000',
        amount: '5.810000',
      },
    ],
    ...overrides,
  };
}

const issuer = { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', taxRegime: '601' };
const numbering = { folio: '1', issuedLocal: '2026-12-01T02:00:00' };

describe('global invoice periods and plan', () => {
  it('cuts periods in central Mexico: day, Monday–Sunday week cut at the month, fortnight, month', () => {
    const at = mx('2026-11-30T23:30:00');
    expect([globalPeriod(at, '01').start, globalPeriod(at, '01').end].map(iso)).to.deep.equal([iso(mx('2026-11-30T00:00:00')), iso(mx('2026-12-01T00:00:00'))]);
    // Monday 30 November: the week would run to 6 December, but the month ends first.
    expect([globalPeriod(at, '02').start, globalPeriod(at, '02').end].map(iso)).to.deep.equal([iso(mx('2026-11-30T00:00:00')), iso(mx('2026-12-01T00:00:00'))]);
    expect(iso(globalPeriod(mx('2026-12-02T10:00:00'), '02').start)).to.equal(iso(mx('2026-12-01T00:00:00')));
    expect(iso(globalPeriod(mx('2026-12-02T10:00:00'), '02').end)).to.equal(iso(mx('2026-12-07T00:00:00')));
    expect(iso(globalPeriod(mx('2026-11-15T23:59:59'), '03').end)).to.equal(iso(mx('2026-11-16T00:00:00')));
    expect(iso(globalPeriod(mx('2026-11-16T00:00:00'), '03').end)).to.equal(iso(mx('2026-12-01T00:00:00')));
    expect(globalPeriod(at, '04')).to.deep.include({ months: '11', year: 2026 });
    expect(iso(globalPeriod(at, '04').end)).to.equal(iso(mx('2026-12-01T00:00:00')));
    // Late on the 30th in Mexico is already 1 December in UTC: Mexico's calendar decides.
    expect(globalPeriod(new Date('2026-12-01T05:00:00Z'), '04').months).to.equal('11');
    expect(globalPeriodEndingAt(mx('2026-12-01T00:00:00'), '04')).to.deep.include({ months: '11', year: 2026 });
  });

  it('caps an expiry at the period close and leaves a shorter one alone', () => {
    const period = globalPeriod(mx('2026-11-27T10:00:00'), '04');
    expect(capExpiry(mx('2026-12-02T10:00:00'), period)).to.deep.equal({ expiresAt: mx('2026-12-01T00:00:00'), capped: true });
    expect(capExpiry(mx('2026-11-28T10:00:00'), period)).to.deep.equal({ expiresAt: mx('2026-11-28T10:00:00'), capped: false });
  });

  it('one concept per ticket, one document per payment form, público en general, and Anexo 20 holds', () => {
    const tickets = [ticket(1), ticket(2, { paymentForm: '04' }), ticket(3), ticket(4, { currency: 'USD', exchangeRate: '17.250000' })];
    const parts = planGlobalInvoices({ tickets, period: globalPeriod(mx('2026-11-27T10:00:00'), '04'), issuer, expeditionPlace: '42501' });
    expect(parts.map((p) => [p.paymentForm, p.part, p.ticketIds])).to.deep.equal([
      ['01', 1, ['tra_1', 'tra_3', 'tra_4']],
      ['04', 1, ['tra_2']],
    ]);
    const first = parts[0]!;
    expect(first.input.receptor).to.deep.equal({ rfc: 'XAXX010101000', name: 'PUBLICO EN GENERAL', taxRegime: '616', cfdiUse: 'S01', postalCode: '42501' });
    expect(first.input.globalInfo).to.deep.equal({ periodicity: '04', months: '11', year: 2026 });
    const concept = first.input.concepts[0]!;
    expect(concept).to.deep.include({ productServiceKey: '01010101', unitKey: 'ACT', sku: 'T-000001', description: 'Venta', taxObject: '02' });
    expect(concept.amount.toFixed(2)).to.equal('262.33');
    expect(concept.discount!.toFixed(2)).to.equal('1.00');
    expect(concept.taxes.map((t) => [t.base.toFixed(2), t.amount!.toFixed(2)])).to.deep.equal([['251.33', '40.21']]);
    // The USD sale enters in pesos at its own exchange rate.
    expect(first.input.concepts[2]!.amount.toFixed(2)).to.equal('4525.19');
    for (const part of parts) expect(checkCfdiAmounts(buildCfdi({ ...part.input, ...numbering }).comprobante)).to.deep.equal([]);
  });

  it(`splits at ${MAX_CONCEPTS} concepts`, () => {
    const tickets = Array.from({ length: MAX_CONCEPTS + 1 }, (_, i) => ticket(i));
    const parts = planGlobalInvoices({ tickets, period: globalPeriod(mx('2026-11-27T10:00:00'), '04'), issuer, expeditionPlace: '42501' });
    expect(parts.map((p) => [p.part, p.ticketIds.length])).to.deep.equal([
      [1, MAX_CONCEPTS],
      [2, 1],
    ]);
  });
});
