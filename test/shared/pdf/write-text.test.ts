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

/** The style as the layout sets it before measuring or writing (pdfkit writes the fill colour each time). */
function setStyle(doc: Doc, style: TextStyle): void {
  doc
    .font(style.font ?? 'Helvetica')
    .fontSize(style.size ?? 8)
    .fillColor(style.color ?? '#000000');
}

/** The same text through pdfkit's own wrapper: what `write` must match. */
function wrappedByPdfkit(doc: Doc, text: string, x: number, y: number, width: number, style: TextStyle): number {
  setStyle(doc, style);
  const shown = text.replace(/[^\x20-\x7e\xa0-\xff–“”]/g, '?');
  doc.text(shown, x, y, { width, align: style.align ?? 'left', lineGap: 0 });
  return doc.y - y;
}

type Draw = (doc: Doc, text: string, x: number, y: number, width: number, style: TextStyle) => number;

/** Every text in every width and style down the pages; `offset` keeps each test's widths (and so its remembered measures) its own. */
async function drawAll(draw: Draw, offset: number): Promise<{ pdf: Buffer; heights: number[]; unwrapped: number; wrapped: number }> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 36, info: { CreationDate: new Date('2026-11-25T12:00:00Z') } });
  const calls = { unwrapped: 0, wrapped: 0 };
  const text = doc.text.bind(doc) as (...args: unknown[]) => Doc;
  doc.text = ((...args: unknown[]) => {
    if ((args[3] as { lineBreak?: boolean } | undefined)?.lineBreak === false) calls.unwrapped++;
    else calls.wrapped++;
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
        const height = draw(doc, t, 36.5, y, width + offset, style);
        heights.push(height);
        y += Math.max(height, 1) + 3.7;
      }
    }
  }
  doc.end();
  return { pdf: await done, heights, ...calls };
}

/** The centred texts: always left to pdfkit's wrapper. */
const CENTRED = TEXTS.length * WIDTHS.length;

describe('writing text (without pdfkit’s line wrapper where the lines are known)', () => {
  before(() => useStandardFontTables());

  it('writes byte for byte what pdfkit’s wrapper writes, at the same heights, whether a text fits one line or not', async () => {
    const ours = await drawAll(write, 0);
    const pdfkit = await drawAll(wrappedByPdfkit, 0);
    expect(ours.heights).to.deep.equal(pdfkit.heights);
    expect(ours.pdf.equals(pdfkit.pdf)).to.equal(true);
    // Both paths ran: most texts fit their line; the long, broken, centred or page-crossing ones did not.
    expect(ours.unwrapped).to.be.greaterThan(300);
    expect(ours.wrapped).to.be.greaterThan(CENTRED + 100);
    expect(pdfkit.unwrapped).to.equal(0);
  });

  it('writes a text measured first from the lines its measure kept: the same bytes, without wrapping it again', async () => {
    const unmeasured = await drawAll(write, 0.5);
    const measuredFirst = await drawAll((doc, t, x, y, width, style) => {
      heightOf(doc, t, width, style);
      return write(doc, t, x, y, width, style);
    }, 0.5);
    const pdfkit = await drawAll((doc, t, x, y, width, style) => {
      setStyle(doc, style);
      return wrappedByPdfkit(doc, t, x, y, width, style);
    }, 0.5);
    expect(measuredFirst.heights).to.deep.equal(pdfkit.heights);
    expect(measuredFirst.heights).to.deep.equal(unmeasured.heights);
    expect(measuredFirst.pdf.equals(pdfkit.pdf)).to.equal(true);
    // Only the centred texts and the few lines at the bottom margin went through the wrapper.
    expect(measuredFirst.wrapped).to.be.within(CENTRED, CENTRED + 30);
    expect(unmeasured.wrapped).to.be.greaterThan(measuredFirst.wrapped + 100);
  });

  it('measures texts at the height pdfkit measures', () => {
    const doc = new PDFDocument({ size: 'LETTER', margin: 36 });
    for (const style of STYLES) {
      for (const width of WIDTHS.map((w) => w + 0.25)) {
        for (const t of TEXTS) {
          const expected = wrappedByPdfkit(doc, t, 36.5, 100, width, style);
          expect(heightOf(doc, t, width, style), `${JSON.stringify(t)} in ${width} pt`).to.be.closeTo(expected, 1e-9);
        }
      }
    }
  });
});
