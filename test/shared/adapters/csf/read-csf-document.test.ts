import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CsfDocumentUnreadable, csfKeyFromText, readCsfDocument } from '../../../../shared/adapters/csf/read-csf-document.js';
import { busyImage, csfPdf, csfPdfWithoutQr, csfPhoto, KEMPER, otherImage, otherPdf, pixelBomb, XOCHILT } from '../../../fixtures/csf/csf-documents.js';

// How fast a read is belongs to the benchmark; here a budget only stops a read that went wrong. A read ends at
// the first QR found, and pdftoppm and jsQR take seconds each on a loaded machine.
const options = { timeoutMs: 30_000 };
/** Without a QR the search takes 80 % of the budget before the text is read; the rest must cover pdftotext. */
const TEXT_FALLBACK_BUDGET_MS = 15_000;
/** For images without a QR: the search ends at the deadline, with the same answer whatever the budget. */
const NO_QR_BUDGET_MS = 1500;

async function refusal(file: Buffer, timeoutMs = options.timeoutMs): Promise<CsfDocumentUnreadable> {
  try {
    await readCsfDocument(file, { timeoutMs });
  } catch (err) {
    expect(err).to.be.instanceOf(CsfDocumentUnreadable);
    return err as CsfDocumentUnreadable;
  }
  throw new Error('the file was read as a CSF');
}

/** CPU time the calling thread (here the event loop) has used, from Linux's /proc, in 10 ms clock ticks (USER_HZ 100). */
function eventLoopCpuMs(): number {
  // utime and stime are fields 14 and 15 of proc(5)'s stat; the first field after ") " is the 3rd.
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('reading an uploaded CSF', function () {
  // The first test reads two PDFs, each allowed the whole budget.
  this.timeout(3 * options.timeoutMs);

  it("reads the RFC and idCIF from the QR of the CSF's PDF", async () => {
    for (const csf of [XOCHILT, KEMPER]) {
      const pdf = await csfPdf(csf);
      expect(await readCsfDocument(pdf, options)).to.deep.equal({ rfc: csf.rfc, idCif: csf.idCif, via: 'qr' });
    }
  });

  it('falls back to the printed RFC and idCIF when the PDF has no QR', async () => {
    const pdf = await csfPdfWithoutQr(KEMPER);
    expect(await readCsfDocument(pdf, { timeoutMs: TEXT_FALLBACK_BUDGET_MS })).to.deep.equal({ rfc: KEMPER.rfc, idCif: KEMPER.idCif, via: 'text' });
  });

  it('reads a phone photo of the QR: larger than the working size, turned, soft and grainy', async () => {
    const photo = await csfPhoto(XOCHILT);
    expect(await readCsfDocument(photo, options)).to.deep.equal({ rfc: XOCHILT.rfc, idCif: XOCHILT.idCif, via: 'qr' });
  });

  it('says a PDF that is not a CSF holds no CSF, even with a QR of another site', async () => {
    const err = await refusal(await otherPdf());
    expect(err.reason).to.equal('no_csf_found');
    expect(err.message).to.match(/not a tax-status certificate/);
  });

  it('says an image without a QR holds no CSF', async () => {
    expect((await refusal(await otherImage(), NO_QR_BUDGET_MS)).reason).to.equal('no_csf_found');
  });

  it('refuses random bytes, an empty file and a truncated PDF as not a document', async () => {
    const pdf = await csfPdf(XOCHILT);
    for (const file of [Buffer.from('not a pdf, not an image\n'.repeat(40)), Buffer.alloc(0), pdf.subarray(0, pdf.length / 2), Buffer.from('%PDF-1.7\n')]) {
      expect((await refusal(file)).reason).to.equal('not_a_document');
    }
  });

  it('refuses a pixel bomb from its header, without decoding it', async () => {
    const bomb = pixelBomb();
    expect(bomb.length).to.be.below(100_000);
    const cpuBefore = process.cpuUsage();
    const err = await refusal(bomb);
    const cpu = process.cpuUsage(cpuBefore);
    expect(err.reason).to.equal('not_a_document');
    expect(err.message).to.match(/more than 25000000 pixels/);
    // Decoding its 120 MP costs seconds of CPU, reading its header milliseconds (CPU time does not grow on a busy machine).
    expect((cpu.user + cpu.system) / 1000).to.be.below(1000);
  });

  it('gives up on a PDF that cannot be read within the time allowed', async () => {
    const pdf = await csfPdf(XOCHILT);
    const err = await refusal(pdf, 1);
    expect(err.reason).to.equal('not_a_document');
    expect(err.message).to.match(/in time/);
  });

  it('stops looking in a busy image at the deadline, without stalling other requests meanwhile', async () => {
    const image = await busyImage();
    const cpuBefore = eventLoopCpuMs();
    const start = performance.now();
    const err = await refusal(image, NO_QR_BUDGET_MS);
    const elapsed = performance.now() - start;
    expect(err.reason).to.equal('no_csf_found');
    // Gave up at the deadline: searching this image to the end takes tens of seconds.
    expect(elapsed).to.be.below(10 * NO_QR_BUDGET_MS);
    // jsQR ran off the event loop: one call on this image costs seconds of CPU, and there it could not be cut short.
    // CPU time, unlike the delay of a timer, does not grow when the machine is busy.
    expect(eventLoopCpuMs() - cpuBefore).to.be.below(NO_QR_BUDGET_MS);
  });

  describe('the printed text', () => {
    it('finds the labelled RFC and idCIF wherever the layout puts them', () => {
      expect(csfKeyFromText('CÉDULA DE IDENTIFICACIÓN FISCAL\nidCIF: 19010123456\n…\nRFC: CACX7605101P8\n')).to.deep.equal({ rfc: 'CACX7605101P8', idCif: '19010123456' });
      expect(csfKeyFromText('RFC:\n\nEKU9003173C9\nidCIF:\n20050987654')).to.deep.equal({ rfc: 'EKU9003173C9', idCif: '20050987654' });
    });

    it("needs both: an invoice's RFC alone is not a CSF", () => {
      expect(csfKeyFromText('FACTURA\nRFC emisor: EKU9003173C9\nRFC: CACX7605101P8')).to.equal(undefined);
      expect(csfKeyFromText('idCIF: 19010123456')).to.equal(undefined);
      expect(csfKeyFromText('RFC: CACX7605101P8 idCIF: 1901012345')).to.equal(undefined);
    });
  });
});
