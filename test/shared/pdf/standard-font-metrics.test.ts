import { expect } from 'chai';
import PDFDocument from 'pdfkit';
import { useStandardFontTables, widthBound } from '../../../shared/pdf/standard-font-metrics.js';

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

/**
 * pdfkit's AFM metrics built from its font data's ES module, a copy the tables never touch (they empty
 * the CommonJS data pdfkit loads, once they hold its metrics).
 */
async function referenceAfm(name: string): Promise<Afm> {
  const data = ((await import(`pdfkit/standard-fonts/${name.replaceAll('-', '')}`)) as { default: unknown }).default;
  const AfmFont = fontOf(name).font.constructor as new (data: unknown) => Afm;
  return new AfmFont(data);
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
    it(`measures and encodes ${name} exactly as pdfkit's AFM metrics: every character and every pair`, async () => {
      const font = fontOf(name);
      const afm = await referenceAfm(name);
      const expectedWidth = (text: string, size: number): number => afm.advancesForGlyphs(afm.glyphsForString(text)).reduce((sum, a) => sum + a, 0) * (size / 1000);
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
      const glyphs = afm.glyphsForString(text);
      const advances = afm.advancesForGlyphs(glyphs);
      expect(encoded).to.deep.equal(afm.encodeText(text));
      expect(positions).to.deep.equal(glyphs.map((g, i) => ({ xAdvance: advances[i], yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth: afm.widthOfGlyph(g) })));
      expect(font.widthOfString('', 8)).to.equal(0);
    });
  }

  it("spares every new document pdfkit's rebuilding of its fonts' metrics", () => {
    const font = fontOf('Helvetica') as Font & { font: { kernPairs: object } };
    // Helvetica's ~2,700 kerning pairs were built for each document and each font before.
    expect(Object.keys(font.font.kernPairs)).to.have.length(0);
    expect(font.widthOfString('AV', 10)).to.be.lessThan(font.widthOfString('A', 10) + font.widthOfString('V', 10));
  });

  for (const name of ['Helvetica', 'Helvetica-Bold']) {
    it(`bounds ${name}'s width of a text however pdfkit's wrapper cuts it into words, and stays close to it`, () => {
      const font = fontOf(name);
      for (const left of CHARACTERS) {
        for (const right of CHARACTERS) {
          const bound = widthBound(name, left + right, 7)!;
          const apart = font.widthOfString(left, 7) + font.widthOfString(right, 7);
          // (within float rounding: fitsOneLine leaves 0.01 pt to spare)
          if (bound + 1e-9 < apart || bound + 1e-9 < font.widthOfString(left + right, 7)) expect.fail(`${name} ${JSON.stringify(left + right)}: bound ${bound} < ${apart}`);
        }
      }
      // Loose only where a pair can widen: a label is bounded within 2 % of its width.
      const label = 'Régimen fiscal del receptor: 601 - General de Ley Personas Morales';
      expect(widthBound(name, label, 8)).to.be.within(font.widthOfString(label, 8), font.widthOfString(label, 8) * 1.02);
      expect(widthBound('Symbol-Unknown', label, 8)).to.equal(undefined);
    });
  }
});
