/**
 * pdfkit measures text in its standard fonts glyph by glyph: each pair's kerning is a lookup by a
 * concatenated string key in an object of ~2,700 pairs, and the line wrapper measures a long seal again
 * for every character it tries at a line's end. That was a third of an invoice PDF's time. Here the
 * standard fonts' measuring (`widthOfString`, `encode`) reads per-font tables filled once per process
 * from pdfkit's own metrics (the same AFM numbers, added in the same order), so the PDF does not change
 * by a byte (test/shared/pdf/standard-font-metrics.test.ts compares both on every printable character).
 */
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

/** What pdfkit 0.20's AFM metrics of a standard font offer (not part of its typed API). */
interface AfmFont {
  characterToGlyph(charCode: number): string;
  widthOfGlyph(glyph: string): number;
  getKernPair(left: string, right: string): number;
  encodeText(text: string): string[];
  /** Every kerning pair's amount, keyed `left\0right` by glyph name. */
  kernPairs: Record<string, number>;
}

interface GlyphPosition {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
  advanceWidth: number;
}

/** pdfkit's StandardFont: `name` (e.g. Helvetica-Bold) and its AFM metrics. */
interface StandardFont {
  name: string;
  font: AfmFont;
  widthOfString(text: string, size: number): number;
  encode(text: string): [string[], GlyphPosition[]];
}

/** One font's glyphs as small integers, their widths and every pair's kerning. */
class FontTables {
  private readonly glyphOfCode = new Map<number, number>();
  private readonly glyphs: string[] = [];
  private readonly widths: number[] = [];
  private readonly kerning = new Map<number, number>();
  private readonly hexOfCode = new Map<number, string>();
  /** By glyph name: the largest kerning that widens a pair it starts (most glyphs have none). */
  private readonly widestKernAfter = new Map<string, number>();
  /** By character code below 256 (-1: not looked up yet): its width plus its widest kerning after it. */
  private readonly boundOfByte = new Float64Array(256).fill(-1);

  constructor(private readonly afm: AfmFont) {
    for (const [pair, amount] of Object.entries(afm.kernPairs)) {
      const left = pair.slice(0, pair.indexOf('\0'));
      if (amount > (this.widestKernAfter.get(left) ?? 0)) this.widestKernAfter.set(left, amount);
    }
  }

  private glyph(code: number): number {
    let index = this.glyphOfCode.get(code);
    if (index === undefined) {
      const name = this.afm.characterToGlyph(code);
      index = this.glyphs.indexOf(name);
      if (index < 0) {
        index = this.glyphs.push(name) - 1;
        this.widths.push(this.afm.widthOfGlyph(name));
      }
      this.glyphOfCode.set(code, index);
    }
    return index;
  }

  private kern(left: number, right: number): number {
    // Fewer than 400 glyphs: both indexes fit one number.
    const key = left * 1024 + right;
    let amount = this.kerning.get(key);
    if (amount === undefined) this.kerning.set(key, (amount = this.afm.getKernPair(this.glyphs[left]!, this.glyphs[right]!)));
    return amount;
  }

  /** Each glyph's advance: its width plus its kerning with the next one (none after the last). */
  advances(text: string): number[] {
    const advances = new Array<number>(text.length);
    let left = text.length > 0 ? this.glyph(text.charCodeAt(0)) : 0;
    for (let i = 0; i < text.length; i++) {
      const right = i + 1 < text.length ? this.glyph(text.charCodeAt(i + 1)) : -1;
      advances[i] = this.widths[left]! + (right < 0 ? 0 : this.kern(left, right));
      left = right;
    }
    return advances;
  }

  /**
   * At least the width of the text however it is cut into pieces measured apart (pdfkit's wrapper
   * measures word by word): each glyph's width plus the widest kerning any pair it starts can add.
   */
  widthBound(text: string): number {
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let bound = code < 256 ? this.boundOfByte[code]! : -1;
      if (bound < 0) {
        const index = this.glyph(code);
        bound = this.widths[index]! + (this.widestKernAfter.get(this.glyphs[index]!) ?? 0);
        if (code < 256) this.boundOfByte[code] = bound;
      }
      width += bound;
    }
    return width;
  }

  width(text: string, index: number): number {
    return this.widths[this.glyph(text.charCodeAt(index))]!;
  }

  encoded(text: string): string[] {
    const out = new Array<string>(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let hex = this.hexOfCode.get(code);
      if (hex === undefined) this.hexOfCode.set(code, (hex = this.afm.encodeText(text[i]!)[0]!));
      out[i] = hex;
    }
    return out;
  }
}

/** A standard font's data as pdfkit ships it (`pdfkit/standard-fonts/<Name>`), read by its AFM metrics. */
interface StandardFontData {
  name: string;
  glyphNames: string;
  glyphWidths: number[];
  kernPairs: unknown[];
}

const STANDARD_FONT_NAMES = [
  'Courier',
  'Courier-Bold',
  'Courier-BoldOblique',
  'Courier-Oblique',
  'Helvetica',
  'Helvetica-Bold',
  'Helvetica-BoldOblique',
  'Helvetica-Oblique',
  'Symbol',
  'Times-Bold',
  'Times-BoldItalic',
  'Times-Italic',
  'Times-Roman',
  'ZapfDingbats',
];

const tables = new Map<string, FontTables>();

/**
 * An upper bound of the width pdfkit's line wrapper can find for `text` in a standard font at `size`,
 * whatever words it cuts it into; undefined before useStandardFontTables() or for another font.
 */
export function widthBound(fontName: string, text: string, size: number): number | undefined {
  const t = tables.get(fontName);
  return t ? t.widthBound(text) * (size / 1000) : undefined;
}

/**
 * Installs the table-driven measuring on pdfkit's standard fonts (once per process; later calls do nothing).
 * The tables keep each font's full AFM metrics; pdfkit's own font data is then emptied of its glyph widths
 * and kerning pairs, which only the measuring replaced here reads, so a new document no longer rebuilds
 * its ~2,700-pair kerning object for every font it uses.
 */
export function useStandardFontTables(): void {
  if (tables.size > 0) return;
  const require = createRequire(import.meta.url);
  const probe = new PDFDocument({ autoFirstPage: false }) as unknown as { font(name: string): unknown; _font: StandardFont };
  for (const name of STANDARD_FONT_NAMES) {
    probe.font(name);
    tables.set(name, new FontTables(probe._font.font));
  }
  const prototype = Object.getPrototypeOf(probe._font) as StandardFont;
  const tablesOf = (font: StandardFont): FontTables => tables.get(font.name)!;
  prototype.widthOfString = function widthOfString(this: StandardFont, text: string, size: number): number {
    let width = 0;
    for (const advance of tablesOf(this).advances(`${text}`)) width += advance;
    return width * (size / 1000);
  };
  prototype.encode = function encode(this: StandardFont, text: string): [string[], GlyphPosition[]] {
    const t = tablesOf(this);
    const advances = t.advances(`${text}`);
    const positions = advances.map((xAdvance, i) => ({ xAdvance, yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth: t.width(text, i) }));
    return [t.encoded(text), positions];
  };
  for (const name of STANDARD_FONT_NAMES) {
    // The module pdfkit itself loads (its `#standard-fonts/*` import and this export name the same file).
    const data = require(`pdfkit/standard-fonts/${name.replaceAll('-', '')}`) as StandardFontData;
    data.glyphNames = '';
    data.glyphWidths = [];
    data.kernPairs = [];
  }
}
