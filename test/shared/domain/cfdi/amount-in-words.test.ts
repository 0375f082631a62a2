import { expect } from 'chai';
import { amountInWords } from '../../../../shared/domain/cfdi/amount-in-words.js';

describe('amount in words (importe con letra)', () => {
  const pesos: [string, string][] = [
    ['0', 'CERO PESOS 00/100 M.N.'],
    ['0.50', 'CERO PESOS 50/100 M.N.'],
    ['1', 'UN PESO 00/100 M.N.'],
    ['1.01', 'UN PESO 01/100 M.N.'],
    ['2', 'DOS PESOS 00/100 M.N.'],
    ['15', 'QUINCE PESOS 00/100 M.N.'],
    ['16', 'DIECISÉIS PESOS 00/100 M.N.'],
    ['20', 'VEINTE PESOS 00/100 M.N.'],
    ['21', 'VEINTIÚN PESOS 00/100 M.N.'],
    ['22', 'VEINTIDÓS PESOS 00/100 M.N.'],
    ['30', 'TREINTA PESOS 00/100 M.N.'],
    ['31', 'TREINTA Y UN PESOS 00/100 M.N.'],
    ['99', 'NOVENTA Y NUEVE PESOS 00/100 M.N.'],
    ['100', 'CIEN PESOS 00/100 M.N.'],
    ['101', 'CIENTO UN PESOS 00/100 M.N.'],
    ['115', 'CIENTO QUINCE PESOS 00/100 M.N.'],
    ['121', 'CIENTO VEINTIÚN PESOS 00/100 M.N.'],
    ['500', 'QUINIENTOS PESOS 00/100 M.N.'],
    ['777', 'SETECIENTOS SETENTA Y SIETE PESOS 00/100 M.N.'],
    ['1000', 'MIL PESOS 00/100 M.N.'],
    ['1001', 'MIL UN PESOS 00/100 M.N.'],
    ['1100', 'MIL CIEN PESOS 00/100 M.N.'],
    ['1234.56', 'MIL DOSCIENTOS TREINTA Y CUATRO PESOS 56/100 M.N.'],
    ['3327.01', 'TRES MIL TRESCIENTOS VEINTISIETE PESOS 01/100 M.N.'],
    ['21000', 'VEINTIÚN MIL PESOS 00/100 M.N.'],
    ['31000', 'TREINTA Y UN MIL PESOS 00/100 M.N.'],
    ['100000', 'CIEN MIL PESOS 00/100 M.N.'],
    ['101000', 'CIENTO UN MIL PESOS 00/100 M.N.'],
    ['500021', 'QUINIENTOS MIL VEINTIÚN PESOS 00/100 M.N.'],
    ['1000000', 'UN MILLÓN DE PESOS 00/100 M.N.'],
    ['1000001', 'UN MILLÓN UN PESOS 00/100 M.N.'],
    ['1001000', 'UN MILLÓN MIL PESOS 00/100 M.N.'],
    ['1500000', 'UN MILLÓN QUINIENTOS MIL PESOS 00/100 M.N.'],
    ['2000000', 'DOS MILLONES DE PESOS 00/100 M.N.'],
    ['21000000', 'VEINTIÚN MILLONES DE PESOS 00/100 M.N.'],
    ['100000000', 'CIEN MILLONES DE PESOS 00/100 M.N.'],
    ['999999999.99', 'NOVECIENTOS NOVENTA Y NUEVE MILLONES NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE PESOS 99/100 M.N.'],
  ];
  for (const [total, words] of pesos) {
    it(`${total} MXN`, () => expect(amountInWords(total, 'MXN')).to.equal(words));
  }

  it('rounds 3+ decimals half-up to cents, carrying into the integer part', () => {
    expect(amountInWords('1.005', 'MXN')).to.equal('UN PESO 01/100 M.N.');
    expect(amountInWords('1.004999', 'MXN')).to.equal('UN PESO 00/100 M.N.');
    expect(amountInWords('10.125000', 'MXN')).to.equal('DIEZ PESOS 13/100 M.N.');
    expect(amountInWords('20.995', 'MXN')).to.equal('VEINTIÚN PESOS 00/100 M.N.');
    expect(amountInWords('0.999', 'MXN')).to.equal('UN PESO 00/100 M.N.');
    expect(amountInWords('7.5', 'MXN')).to.equal('SIETE PESOS 50/100 M.N.');
  });

  it('writes dollars as DÓLARES … USD', () => {
    expect(amountInWords('1234.56', 'USD')).to.equal('MIL DOSCIENTOS TREINTA Y CUATRO DÓLARES 56/100 USD');
    expect(amountInWords('1', 'USD')).to.equal('UN DÓLAR 00/100 USD');
    expect(amountInWords('21', 'USD')).to.equal('VEINTIÚN DÓLARES 00/100 USD');
    expect(amountInWords('3000000', 'USD')).to.equal('TRES MILLONES DE DÓLARES 00/100 USD');
  });

  it('writes any other currency by its code, the number without a noun', () => {
    expect(amountInWords('1234.56', 'EUR')).to.equal('MIL DOSCIENTOS TREINTA Y CUATRO 56/100 EUR');
    expect(amountInWords('21', 'EUR')).to.equal('VEINTIUNO 00/100 EUR');
    expect(amountInWords('1000000', 'EUR')).to.equal('UN MILLÓN 00/100 EUR');
  });

  it('refuses what it cannot write', () => {
    expect(() => amountInWords('1000000000', 'MXN')).to.throw(RangeError, /too large/);
    expect(() => amountInWords('999999999.995', 'MXN')).to.throw(RangeError, /too large/);
    for (const bad of ['', '-1', '1e3', '1,000.00', ' 1', '.5', 'abc']) {
      expect(() => amountInWords(bad, 'MXN'), bad).to.throw(RangeError, /not a non-negative decimal/);
    }
  });
});
