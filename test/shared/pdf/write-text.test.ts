import { expect } from 'chai';
import PDFDocument from 'pdfkit';
import { useStandardFontTables } from '../../../shared/pdf/standard-font-metrics.js';
import { heightOf, write, type TextStyle } from '../../../shared/pdf/write-text.js';

type Doc = InstanceType<typeof PDFDocument>;

/** Texts an invoice prints, and the ones that test a one-line decision: kerning, spaces, break characters. */
const TEXTS = [
  'RFC',
  'Régimen fiscal',
  '601 - General de Ley Personas Morales',
  '1,234,567.89',
  '0.160000',
  'AVATAR Yo Tú Wa, LTA',
  ' A T Y V W ',
  'Av. Yucatán 123 “Ñoño” – 50 % off',
  'trailing spaces   ',
  'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=1&re=EKU9003173C9',
  'KklI5Q3Fm+b1k2/8q0d9JQ==/AVAToWaYsV1y',
  'multi-part-hyphenated-word-that-goes-on',
  'a line\nand another',
  'soft\u00adhyphen',
  'Servicio de facturación electrónica con una descripción larga que no cabe en una sola línea de la tabla',
  '中文 and ☃',
  '',
];

const WIDTHS = [12, 30, 44, 56, 62, 90, 120, 180, 260, 540];
const STYLES: TextStyle[] = [
  {},
  { font: 'Helvetica-Bold', size: 9 },
  { size: 6, color: '#555555' },
  { align: 'right' },
  { font: 'Helvetica-Bold', align: 'right', size: 7 },
  { align: 'center' },
];

/** The same text through pdfkit's own wrapper: what `write` must match. */
function wrappedByPdfkit(doc: Doc, text: string, x: number, y: number, width: number, style: TextStyle): number {
  doc
    .font(style.font ?? 'Helvetica')
    .fontSize(style.size ?? 8)
    .fillColor(style.color ?? '#000000');
  const shown = text.replace(/[^\x20-\x7e\xa0-\xff–“”]/g, '?');
  doc.text(shown, x, y, { width, align: style.align ?? 'left', lineGap: 0 });
  return doc.y - y;
}

async function drawAll(
  draw: (doc: Doc, text: string, x: number, y: number, width: number, style: TextStyle) => number,
): Promise<{ pdf: Buffer; heights: number[]; oneLine: number }> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 36, info: { CreationDate: new Date('2026-11-25T12:00:00Z') } });
  let oneLine = 0;
  const text = doc.text.bind(doc) as (...args: unknown[]) => Doc;
  doc.text = ((...args: unknown[]) => {
    if ((args[3] as { lineBreak?: boolean } | undefined)?.lineBreak === false) oneLine++;
    return text(...args);
  }) as Doc['text'];
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  const heights: number[] = [];
  let y = 40;
  for (const style of STYLES) {
    for (const width of WIDTHS) {
      for (const t of TEXTS) {
        // Some lines land right at the bottom margin, where pdfkit's wrapper starts a new page.
        if (y > 700) y = 40;
        const height = draw(doc, t, 36.5, y, width, style);
        heights.push(height);
        y += Math.max(height, 1) + 3.7;
      }
    }
  }
  doc.end();
  return { pdf: await done, heights, oneLine };
}

describe('writing text (one-line texts without pdfkit’s line wrapper)', () => {
  before(() => useStandardFontTables());

  it('writes byte for byte what pdfkit’s wrapper writes, at the same heights, whether a text fits one line or not', async () => {
    const ours = await drawAll(write);
    const pdfkit = await drawAll(wrappedByPdfkit);
    expect(ours.heights).to.deep.equal(pdfkit.heights);
    expect(ours.pdf.equals(pdfkit.pdf)).to.equal(true);
    // Both paths ran: most texts fit their line, and the long, broken, centred or page-crossing ones did not.
    expect(ours.oneLine).to.be.greaterThan(300);
    expect(ours.oneLine).to.be.lessThan(TEXTS.length * WIDTHS.length * STYLES.length - 200);
    expect(pdfkit.oneLine).to.equal(0);
  });

  it('measures one-line texts at the height pdfkit measures', () => {
    const doc = new PDFDocument({ size: 'LETTER', margin: 36 });
    for (const style of STYLES) {
      for (const width of WIDTHS) {
        for (const t of TEXTS) {
          const expected = wrappedByPdfkit(doc, t, 36.5, 100, width, style);
          expect(heightOf(doc, t, width, style), `${JSON.stringify(t)} in ${width} pt`).to.be.closeTo(expected, 1e-9);
        }
      }
    }
  });
});
