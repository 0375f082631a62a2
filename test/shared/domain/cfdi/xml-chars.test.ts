import { expect } from 'chai';
import { firstNonXmlChar, xmlCharProblem } from '../../../../shared/domain/cfdi/xml-chars.js';
import { serializeXml, UnwritableXmlError } from '../../../../shared/domain/cfdi/serialize-xml.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { element } from '../../../../shared/domain/cfdi/xml-element.js';
import { cfdiTextProblem, CFDI_TEXT } from '../../../../shared/sat/cfdi-text-rules.js';

const concept = (description: string) =>
  element('cfdi:Comprobante', { 'xmlns:cfdi': 'http://www.sat.gob.mx/cfd/4', Version: '4.0' }, [element('cfdi:Concepto', { Descripcion: description })]);

describe('characters XML 1.0 cannot hold (issue #28)', () => {
  it('finds C0 controls, U+FFFE, U+FFFF and lone surrogates; passes tab, LF, CR, text and astral characters', () => {
    for (const [text, codePoint, index] of [
      ['a\u0001b', 0x1, 1],
      ['\u0000', 0x0, 0],
      ['ab\u0008', 0x8, 2],
      ['x\u001B[31m', 0x1b, 1],
      ['\u000B', 0xb, 0],
      ['a\uFFFE', 0xfffe, 1],
      ['\uFFFF', 0xffff, 0],
      ['a\uD800b', 0xd800, 1],
      ['\uDC00', 0xdc00, 0],
    ] as const) {
      expect(firstNonXmlChar(text), JSON.stringify(text)).to.deep.equal({ index, codePoint });
    }
    for (const text of ['Agua\t1 L\r\nGarrafón', 'ÁÉÍ ñ € \u007F \u0085 \uFFFD', 'taco 🌮 \uD83C\uDF2E', '']) {
      expect(firstNonXmlChar(text), JSON.stringify(text)).to.equal(undefined);
    }
  });

  it("the door message names the code point; a CFDI text with one fails its rule before SAT's facets", () => {
    expect(xmlCharProblem('a\u001Bb')).to.contain('U+001B');
    expect(xmlCharProblem('\uD800')).to.contain('U+D800').and.contain('surrogate');
    expect(xmlCharProblem('\uFFFE')).to.contain('U+FFFE');
    expect(cfdiTextProblem(CFDI_TEXT.conceptDescription, 'Agua\u0001')).to.contain('U+0001');
    expect(cfdiTextProblem(CFDI_TEXT.receptorName, 'ACME\uFFFF')).to.contain('U+FFFF');
    expect(cfdiTextProblem(CFDI_TEXT.conceptDescription, 'Agua\t1 L\n')).to.equal(undefined);
  });

  it('the serializer refuses to write a document a strict parser would reject, naming the attribute', () => {
    for (const bad of ['Agua\u0001', '\u0008', 'a\u001Bb', '\uFFFE', '\uFFFF', 'x\uD800']) {
      expect(() => serializeXml(concept(bad)), JSON.stringify(bad))
        .to.throw(UnwritableXmlError)
        .with.property('message')
        .that.contains('cfdi:Concepto@Descripcion');
    }
  });

  it('tabs, line breaks and astral characters are still written, and read back as they were', () => {
    const text = 'Agua\t1 L\r\nGarrafón 🌮';
    const xml = serializeXml(concept(text));
    expect(firstNonXmlChar(xml)).to.equal(undefined);
    expect(parseXml(xml).children[0]!.attributes).to.deep.equal([['Descripcion', text]]);
  });
});
