import { expect } from 'chai';
import PDFDocument from 'pdfkit';
import { gatherPageContentAsText } from '../../../shared/pdf/page-content-as-text.js';
import { renderQrPng } from '../../../shared/domain/qr-code/render-qr-png.js';

type Doc = InstanceType<typeof PDFDocument>;

/** The content stream of the document's current page, as pdfkit keeps it until the page ends. */
function pendingChunks(doc: Doc): number {
  return (doc as unknown as { page: { content: { buffer: unknown[] } } }).page.content.buffer.length;
}

/** Two pages drawn out of order (buffered pages, as the invoice's footers are), text outside Latin-1 and an image between operators. */
async function draw(gathered: boolean, seen: number[]): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'LETTER', bufferPages: true, info: { CreationDate: new Date('2026-11-25T12:00:00Z') } });
  if (gathered) gatherPageContentAsText(doc);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.font('Helvetica').fontSize(9).fillColor('#333333').text('Año ÑANDÚ “€ 1,234.56” – Łódź 中', 40, 40, { width: 200 });
  doc.image(renderQrPng('https://verificacfdi.facturaelectronica.sat.gob.mx/?id=1', { size: 1, margin: 4 }), 40, 120, { width: 90 });
  doc.moveTo(40, 300).lineTo(500, 300).lineWidth(0.5).stroke('#999999');
  seen.push(pendingChunks(doc));
  doc.addPage();
  doc.font('Helvetica-Bold').text('Página 2: '.repeat(40), 40, 40, { width: 300, align: 'right' });
  seen.push(pendingChunks(doc));
  doc.switchToPage(0);
  doc.font('Helvetica').text('Pie de la página 1', 40, 700);
  doc.end();
  return done;
}

describe('page content gathered as text (one buffer per page instead of one per operator)', () => {
  it('writes the same PDF, byte for byte, as pdfkit alone', async () => {
    const pending: number[] = [];
    const gathered = await draw(true, pending);
    const plain = await draw(false, []);
    expect(gathered.equals(plain)).to.equal(true);
    expect(gathered.length).to.be.greaterThan(1000);
    // Gathered, each page's operators wait as one string: pdfkit holds only the page's opening transform
    // (written as it adds the page, before anyone hears of it), on the first page (an image's `Do`
    // between the operators) and on a page added later.
    expect(pending).to.deep.equal([1, 1]);
  });

  it('holds one byte array per operator without it (what the gathering saves)', async () => {
    const pending: number[] = [];
    await draw(false, pending);
    expect(pending[0]).to.be.greaterThan(10);
    expect(pending[1]).to.be.greaterThan(10);
  });
});
