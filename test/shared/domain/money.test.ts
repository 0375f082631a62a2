import { expect } from 'chai';
import fc from 'fast-check';
import { dec, toJsonNumber } from '../../../shared/domain/money.js';

describe('toJsonNumber (shared/domain/money.ts)', () => {
  const byDecimal = (value: string) => Number(dec(value).toDecimalPlaces(6).toString());

  it('reads a numeric(15,6) column as the JSON number of its value, as Decimal would', () => {
    for (const text of ['116.000000', '0.000001', '-5.500000', '999999999.999999', '0', '10', '0.160000', '1.5']) {
      expect(toJsonNumber(text), text).to.equal(byDecimal(text));
    }
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 6 }), (units, scale) => {
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const text = `${units < 0n ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
        expect(toJsonNumber(text), text).to.equal(byDecimal(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('rounds what has more than 6 decimals half up, and reads other spellings through Decimal', () => {
    expect(toJsonNumber('1.0000005')).to.equal(1.000001);
    expect(toJsonNumber('1e2')).to.equal(100);
    expect(toJsonNumber(2.5)).to.equal(2.5);
  });
});
