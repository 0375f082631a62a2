import { expect } from 'chai';
import { cancellationDeadline, cancellationTerms, endOfNextBusinessDay, type CancellationTermsInput } from '../../../shared/cancellation/cancellation-terms.js';

/** A central-Mexico wall-clock time (UTC−6) as an instant. */
const mx = (local: string) => new Date(`${local}-06:00`);

const invoice: CancellationTermsInput = {
  type: 'I',
  total: '5000.00',
  exchangeRate: '1',
  issuerRfc: 'EKU9003173C9',
  receptorRfc: 'URE180429TM6',
  stampedAt: mx('2026-11-23T10:00:00'),
  now: mx('2026-11-30T10:00:00'),
};

describe('cancellation terms (RMF 2.7.1.35 and 2.7.1.46)', () => {
  it('asks the receptor for an income invoice over $1,000 to a taxpayer, after the next business day', () => {
    expect(cancellationTerms(invoice)).to.deep.equal({ cancellable: true, acceptance: 'REQUIRED', reason: 'receptor_must_accept' });
  });

  it('cancels at once up to $1,000 in pesos, counting the exchange rate, but not for a payment complement', () => {
    expect(cancellationTerms({ ...invoice, total: '1000.00' })).to.include({ acceptance: 'NOT_REQUIRED', reason: 'amount_up_to_1000' });
    expect(cancellationTerms({ ...invoice, total: '1000.01' })).to.include({ acceptance: 'REQUIRED' });
    expect(cancellationTerms({ ...invoice, total: '60.00', exchangeRate: '17.250000' })).to.include({ acceptance: 'REQUIRED' });
    expect(cancellationTerms({ ...invoice, total: '50.00', exchangeRate: '17.250000' })).to.include({ acceptance: 'NOT_REQUIRED' });
    expect(cancellationTerms({ ...invoice, type: 'P', total: '0' })).to.include({ acceptance: 'REQUIRED' });
  });

  it('cancels at once credit notes, público en general and foreign receptors', () => {
    expect(cancellationTerms({ ...invoice, type: 'E' })).to.include({ acceptance: 'NOT_REQUIRED', reason: 'not_income' });
    expect(cancellationTerms({ ...invoice, receptorRfc: 'XAXX010101000' })).to.include({ reason: 'publico_en_general' });
    expect(cancellationTerms({ ...invoice, receptorRfc: 'XEXX010101000' })).to.include({ reason: 'foreign_receptor' });
  });

  it('cancels at once until the end of the next business day, skipping weekends and rest days', () => {
    // Friday 2026-11-13 → Monday 16 is the third Monday of November (rest day) → Tuesday 17.
    const friday = mx('2026-11-13T18:00:00');
    expect(endOfNextBusinessDay(friday).toISOString()).to.equal(mx('2026-11-17T23:59:59.999').toISOString());
    expect(cancellationTerms({ ...invoice, stampedAt: friday, now: mx('2026-11-17T23:59:00') })).to.include({ reason: 'next_business_day' });
    expect(cancellationTerms({ ...invoice, stampedAt: friday, now: mx('2026-11-18T00:00:01') })).to.include({ acceptance: 'REQUIRED' });
    // Late on a Monday in central Mexico is already Tuesday in UTC: the Mexican date counts.
    expect(endOfNextBusinessDay(mx('2026-11-23T23:30:00')).toISOString()).to.equal(mx('2026-11-24T23:59:59.999').toISOString());
  });

  it('refuses after the month the annual return is due: March for companies, April for individuals', () => {
    expect(cancellationDeadline('EKU9003173C9', invoice.stampedAt).toISOString()).to.equal(mx('2027-03-31T23:59:59.999').toISOString());
    expect(cancellationDeadline('CACX7605101P8', invoice.stampedAt).toISOString()).to.equal(mx('2027-04-30T23:59:59.999').toISOString());
    expect(cancellationTerms({ ...invoice, now: mx('2027-04-01T00:00:00') })).to.deep.equal({
      cancellable: false,
      reason: 'period_over',
      deadline: mx('2027-03-31T23:59:59.999'),
    });
    expect(cancellationTerms({ ...invoice, issuerRfc: 'CACX7605101P8', now: mx('2027-04-01T00:00:00') })).to.include({ cancellable: true });
  });
});
