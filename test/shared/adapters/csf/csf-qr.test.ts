import { expect } from 'chai';
import { parseCsfQrText } from '../../../../shared/adapters/csf/csf-qr.js';

const VALIDATOR = 'https://siat.sat.gob.mx/app/qr/faces/pages/mobile/validadorqr.jsf';

describe('the CSF QR text', () => {
  it("reads the idCIF and RFC from D3 of SAT's validator URL, for personas físicas and morales", () => {
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=19010123456_CACX7605101P8`)).to.deep.equal({ rfc: 'CACX7605101P8', idCif: '19010123456' });
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=20050987654_EKU9003173C9`)).to.deep.equal({ rfc: 'EKU9003173C9', idCif: '20050987654' });
  });

  it('tolerates http, any parameter order, a lower-case key, URL encoding and surrounding whitespace', () => {
    const expected = { rfc: 'CACX7605101P8', idCif: '19010123456' };
    expect(parseCsfQrText(`http://siat.sat.gob.mx/app/qr/faces/pages/mobile/validadorqr.jsf?D1=10&D2=1&D3=19010123456_CACX7605101P8`)).to.deep.equal(expected);
    expect(parseCsfQrText(`${VALIDATOR}?D3=19010123456_CACX7605101P8&D2=1&D1=10`)).to.deep.equal(expected);
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&d3=19010123456_CACX7605101P8`)).to.deep.equal(expected);
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=19010123456%5FCACX7605101P8`)).to.deep.equal(expected);
    expect(parseCsfQrText(`HTTPS://SIAT.SAT.GOB.MX/app/qr/faces/pages/mobile/validadorqr.jsf?D1=10&D2=1&D3=19010123456_CACX7605101P8\n`)).to.deep.equal(expected);
  });

  it('decodes Ñ and & in an RFC', () => {
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=19010123456_%C3%91%26A010101AB1`)).to.deep.equal({ rfc: 'Ñ&A010101AB1', idCif: '19010123456' });
  });

  it("refuses another host, even one that only looks like SAT's", () => {
    expect(parseCsfQrText('https://example.com/validadorqr.jsf?D1=10&D2=1&D3=19010123456_CACX7605101P8')).to.equal(undefined);
    expect(parseCsfQrText('https://siat.sat.gob.mx.example.com/validadorqr.jsf?D3=19010123456_CACX7605101P8')).to.equal(undefined);
    expect(parseCsfQrText('ftp://siat.sat.gob.mx/validadorqr.jsf?D3=19010123456_CACX7605101P8')).to.equal(undefined);
  });

  it('refuses an idCIF that is not 11 digits', () => {
    for (const idCif of ['1901012345', '190101234567', '1901012345A', '']) {
      expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=${idCif}_CACX7605101P8`), idCif).to.equal(undefined);
    }
  });

  it('refuses an RFC of the wrong shape', () => {
    for (const rfc of ['CACX7605101P', 'CACX7605101P89', 'CA7605101P8', 'CACX76051O1P8', 'CACX-7605101P8', '']) {
      expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=19010123456_${rfc}`), rfc).to.equal(undefined);
    }
  });

  it('refuses a URL without D3, a D3 without the separator, and text that is not a URL', () => {
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1`)).to.equal(undefined);
    expect(parseCsfQrText(`${VALIDATOR}?D1=10&D2=1&D3=19010123456CACX7605101P8`)).to.equal(undefined);
    expect(parseCsfQrText('19010123456_CACX7605101P8')).to.equal(undefined);
    expect(parseCsfQrText('')).to.equal(undefined);
  });
});
