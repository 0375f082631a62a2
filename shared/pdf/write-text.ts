/**
 * Text on an invoice page in pdfkit's standard fonts: styles, measured heights and wrapped writing.
 * pdfkit sends every text through its line wrapper, even a label that fits its line; a text that surely
 * fits is written here as the one line the wrapper would write, so the bytes are pdfkit's own
 * (test/shared/pdf/write-text.test.ts compares both).
 */
import { widthBound } from './standard-font-metrics.js';

type Doc = PDFKit.PDFDocument;
export type Align = 'left' | 'right' | 'center';

export const REGULAR = 'Helvetica';
const TEXT_COLOR = '#000000';

// Characters the standard fonts' WinAnsiEncoding has beyond Latin-1 (pdfkit garbles any other).
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** The text as the standard fonts can show it: unsupported characters print as "?". */
function printable(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0) ?? 0;
    out += (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRAS.has(ch) ? ch : '?';
  }
  return out;
}

export interface TextStyle {
  font?: string;
  size?: number;
  color?: string;
  align?: Align;
}

function setStyle(doc: Doc, style: TextStyle): void {
  doc
    .font(style.font ?? REGULAR)
    .fontSize(style.size ?? 8)
    .fillColor(style.color ?? TEXT_COLOR);
}

/**
 * Measured heights by style, width and text. The layout measures a block before it decides where it
 * goes (and a grid once more for its rows), and labels, headings and catalog descriptions recur in every
 * document; a height depends on the font's metrics alone. Bounded: emptied when full.
 */
const heights = new Map<string, number>();
const MEASURED_LIMIT = 20_000;

export function heightOf(doc: Doc, text: string, width: number, style: TextStyle = {}): number {
  // The style is set either way, so the content stream is the same with or without a remembered height.
  setStyle(doc, style);
  const key = `${style.font ?? REGULAR}|${style.size ?? 8}|${width}|${text}`;
  let height = heights.get(key);
  if (height === undefined) {
    const shown = printable(text);
    if (heights.size >= MEASURED_LIMIT) heights.clear();
    heights.set(key, (height = fitsOneLine(shown, width, style) ? doc.currentLineHeight(true) : doc.heightOfString(shown, { width, lineGap: 0 })));
  }
  return height;
}

/**
 * Whether pdfkit's wrapper surely writes `text` as one line of `width`: its width with every kerning that
 * widens (the wrapper measures word by word, without the kerning between words) fits with room to spare.
 * Centred text is left to the wrapper: it centres on the sum of the words' widths.
 */
function fitsOneLine(text: string, width: number, style: TextStyle): boolean {
  // printable() leaves no line-ending character; a soft hyphen may print as a hyphen at a line's end.
  if (text.length === 0 || style.align === 'center' || text.includes('\u00ad')) return false;
  const bound = widthBound(style.font ?? REGULAR, text, style.size ?? 8);
  return bound !== undefined && bound + 0.01 <= width;
}

/** Writes wrapped text; returns its height (where pdfkit left the cursor: no second layout to measure it). */
export function write(doc: Doc, text: string, x: number, y: number, width: number, style: TextStyle = {}): number {
  setStyle(doc, style);
  const shown = printable(text);
  const lineHeight = doc.currentLineHeight(true);
  // Most texts are a label or a value that fits its line: written as the wrapper would write its one line
  // (same position, same operators: the same bytes), without its line breaking (~6 % of an invoice PDF). The
  // wrapper also starts a new page when the line would cross the bottom margin: that case stays with it.
  if (fitsOneLine(shown, width, style) && y + lineHeight <= doc.page.maxY() - 0.01) {
    // pdfkit right-aligns on its wrapper's line width, (width × 100 % scaling) / 1 column.
    const lineX = style.align === 'right' ? x + ((width * 100) / 100 - doc.widthOfString(shown.replace(/\s+$/, ''))) : x;
    doc.text(shown, lineX, y, { lineBreak: false });
    doc.x = x;
    doc.y = y + lineHeight;
  } else {
    doc.text(shown, x, y, { width, align: style.align ?? 'left', lineGap: 0 });
  }
  return doc.y - y;
}
