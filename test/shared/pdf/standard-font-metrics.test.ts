import { expect } from 'chai';
import PDFDocument from 'pdfkit';
import { useStandardFontTables } from '../../../shared/pdf/standard-font-metrics.js';

/** pdfkit's AFM metrics of a standard font: what its own StandardFont measured with before the tables. */
interface Afm {
  glyphsForString(text: string): string[];
  advancesForGlyphs(glyphs: string[]): number[];
  widthOfGlyph(glyph: string): number;
  encodeText(text: string): string[];
}
interface Font {
  font: Afm;
  widthOfString(text: string, size: number): number;
  encode(text: string): [string[], { xAdvance: number; advanceWidth: number }[]];
}

function fontOf(name: string): Font {
  return (new PDFDocument({ autoFirstPage: false }).font(name) as unknown as { _font: Font })._font;
}

/** The characters an invoice can print: ASCII, Latin-1 and the WinAnsi extras, plus one it cannot. */
const CHARACTERS = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x100 - 0xa0 }, (_, i) => String.fromCharCode(0xa0 + i)),
  ...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ',
  '\u4e2d',
];

describe('standard font tables (pdfkit measuring without per-pair string lookups)', () => {
  before(() => useStandardFontTables());

  for (const name of ['Helvetica', 'Helvetica-Bold']) {
    it(`measures and encodes ${name} exactly as pdfkit's AFM metrics: every character and every pair`, () => {
      const font = fontOf(name);
      const expectedWidth = (text: string, size: number): number => font.font.advancesForGlyphs(font.font.glyphsForString(text)).reduce((sum, a) => sum + a, 0) * (size / 1000);
      let kerned = 0;
      for (const left of CHARACTERS) {
        for (const right of CHARACTERS) {
          const text = left + right;
          const width = font.widthOfString(text, 7);
          if (width !== expectedWidth(text, 7)) expect.fail(`${name} ${JSON.stringify(text)}: ${width} ≠ ${expectedWidth(text, 7)}`);
          if (width !== font.widthOfString(left, 7) + font.widthOfString(right, 7)) kerned++;
        }
      }
      // The pairs really are kerned (Helvetica has about 2,700 pairs): the tables did not drop them.
      expect(kerned).to.be.greaterThan(500);

      const text = 'Sello digital del CFDI: KklI5Q==/AVAToWay, Año ÑANDÚ “€ 1,234.56” – Łódź';
      const [encoded, positions] = font.encode(text);
      const glyphs = font.font.glyphsForString(text);
      const advances = font.font.advancesForGlyphs(glyphs);
      expect(encoded).to.deep.equal(font.font.encodeText(text));
      expect(positions).to.deep.equal(glyphs.map((g, i) => ({ xAdvance: advances[i], yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth: font.font.widthOfGlyph(g) })));
      expect(font.widthOfString('', 8)).to.equal(0);
    });
  }
});
