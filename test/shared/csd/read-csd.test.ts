import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CsdError, readCsd } from '../../../shared/csd/read-csd.js';

const dir = new URL('../../../data/sat/test-csd/', import.meta.url);
const cer = readFileSync(new URL('EKU9003173C9.cer', dir));
const key = readFileSync(new URL('EKU9003173C9.key', dir));

describe('reading a CSD', () => {
  it('reads the SAT test CSD of EKU9003173C9', () => {
    const info = readCsd(cer, key, '12345678a');
    expect(info).to.include({ certificateNumber: '30001000000500003416', rfc: 'EKU9003173C9' });
    expect(info.validTo.toISOString().slice(0, 10)).to.equal('2027-05-18');
  });

  it('refuses a wrong password or a key that is not a key', () => {
    expect(() => readCsd(cer, key, 'wrong')).to.throw(CsdError);
    expect(() => readCsd(cer, Buffer.from('garbage'), '12345678a')).to.throw(CsdError);
  });
});
