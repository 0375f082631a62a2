import { expect } from 'chai';
import { checkRfc } from '../../../../shared/domain/tax-id/check-rfc.js';

describe('RFC checks', () => {
  it('tells persona moral (12) from persona física (13) and normalizes case', () => {
    expect(checkRfc('eku9003173c9')).to.deep.include({ ok: true, rfc: 'EKU9003173C9', personType: 'legal' });
    expect(checkRfc('CACX7605101P8')).to.deep.include({ ok: true, personType: 'natural' });
  });

  it('reports a check digit that does not match without refusing it: SAT issued such RFCs', () => {
    expect(checkRfc('EKU9003173C8')).to.deep.include({ ok: true, checkDigit: { matches: false, expected: '9' } });
    // SAT's own stamped sample (../shared/sat/samples) is addressed to it.
    expect(checkRfc('MCI7306249Y1')).to.deep.include({ ok: true, personType: 'legal', checkDigit: { matches: false, expected: '6' } });
    expect(checkRfc('EKU9003173C9')).to.deep.include({ ok: true, checkDigit: { matches: true } });
  });

  it('refuses an impossible date and garbage', () => {
    expect(checkRfc('EKU9013173C9')).to.deep.include({ ok: false, code: 'rfc_invalid' });
    expect(checkRfc('hello')).to.deep.include({ ok: false, code: 'rfc_invalid' });
  });

  it("knows SAT's generic RFCs, which carry no check digit", () => {
    expect(checkRfc('XAXX010101000')).to.deep.include({ ok: true, generic: true, foreign: false });
    expect(checkRfc('XEXX010101000')).to.deep.include({ ok: true, generic: false, foreign: true });
  });
});
