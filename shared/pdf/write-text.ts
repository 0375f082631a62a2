/**
 * Text on an invoice page in pdfkit's standard fonts: styles, measured heights and wrapped writing.
 * pdfkit sends every text through its line wrapper, even a label that fits its line and a text the
 * layout has just measured; where the lines are known (a text that surely fits, or the lines a measure
 * kept) they are written here as the wrapper writes each line, so the bytes are pdfkit's own
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

/** A text's height in a width and style, and the lines pdfkit's wrapper breaks it into. */
interface Measured {
  height: number;
  lines: string[];
}

/**
 * Measured texts by style, width and text. The layout measures a block before it decides where it goes
 * (and a grid once more for its rows), then writes it: the lines kept here are written without wrapping
 * the text again (the three seals of every invoice are most of that). Labels, headings and catalog
 * descriptions recur in every document; a measure depends on the font's metrics alone. Bounded: emptied
 * when full.
 */
const measured = new Map<string, Measured>();
const MEASURED_LIMIT = 20_000;

function keyOf(text: string, width: number, style: TextStyle): string {
  return `${style.font ?? REGULAR}|${style.size ?? 8}|${width}|${text}`;
}

export function heightOf(doc: Doc, text: string, width: number, style: TextStyle = {}): number {
  // The style is set either way, so the content stream is the same with or without a remembered measure.
  setStyle(doc, style);
  const key = keyOf(text, width, style);
  let known = measured.get(key);
  if (known === undefined) {
    const shown = printable(text);
    known = fitsOneLine(shown, width, style) ? { height: doc.currentLineHeight(true), lines: [shown] } : wrapLines(doc, shown, width);
    if (measured.size >= MEASURED_LIMIT) measured.clear();
    measured.set(key, known);
  }
  return known.height;
}

/** pdfkit 0.20's text layout entry point (not part of its typed API): what heightOfString runs. */
interface TextLayout {
  _text(text: string, x: number, y: number, options: PDFKit.Mixins.TextOptions & { height: number }, onLine: (line: string) => void): void;
}

/** pdfkit's heightOfString, step for step (the same height to the last bit), keeping the lines its wrapper makes. */
function wrapLines(doc: Doc, shown: string, width: number): Measured {
  const { x, y } = doc;
  const lines: string[] = [];
  (doc as unknown as TextLayout)._text(shown, x, y, { width, lineGap: 0, height: Infinity }, (line) => {
    lines.push(line);
    // heightOfString adds the line gap too: 0 here.
    doc.y += doc.currentLineHeight(true);
  });
  const height = doc.y - y;
  doc.x = x;
  doc.y = y;
  return { height, lines };
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
  // Most texts are a label or a value that fits its line, and the longer ones were measured first: either
  // way the lines are known, and are written as pdfkit's wrapper writes each line (same positions, same
  // operators: the same bytes) without breaking the text again. The wrapper also starts a new page when a
  // line would cross the bottom margin, and centres on widths it sums word by word: those stay with it.
  const lines = fitsOneLine(shown, width, style) ? [shown] : style.align === 'center' ? undefined : measured.get(keyOf(text, width, style))?.lines;
  if (lines && y + lines.length * lineHeight <= doc.page.maxY() - 0.01) {
    let lineY = y;
    for (const line of lines) {
      // pdfkit right-aligns on its wrapper's line width, (width × 100 % scaling) / 1 column.
      const lineX = style.align === 'right' ? x + ((width * 100) / 100 - doc.widthOfString(line.replace(/\s+$/, ''))) : x;
      doc.text(line, lineX, lineY, { lineBreak: false });
      lineY += lineHeight;
    }
    doc.x = x;
    doc.y = lineY;
  } else {
    doc.text(shown, x, y, { width, align: style.align ?? 'left', lineGap: 0 });
  }
  return doc.y - y;
}
