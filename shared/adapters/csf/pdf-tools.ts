/**
 * Poppler's command-line tools (pdftoppm, pdftotext) on an in-memory PDF. Both read the PDF from stdin
 * when the file argument is `-`, so nothing is written to disk; no shell is involved.
 */
import { execFile } from 'node:child_process';

/** The tool ran but the PDF could not be read (damaged, encrypted, not a PDF) or it took too long. */
export class PdfUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfUnreadable';
  }
}

/** An 8-bit greyscale raster, one byte per pixel, row by row. */
export interface GreyImage {
  width: number;
  height: number;
  data: Buffer;
}

export interface PdfToolOptions {
  /** 1-based, inclusive; a range beyond the last page stops at the last page. */
  firstPage: number;
  lastPage: number;
  timeoutMs: number;
}

function runTool(command: string, args: string[], input: Buffer, timeoutMs: number, maxBuffer: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { encoding: 'buffer', timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer }, (err, stdout) => {
      if (!err) return resolve(stdout);
      // A missing binary is the server's problem, not the document's.
      if (err.code === 'ENOENT') return reject(err as Error);
      // execFile kills the tool both at the timeout and when its output passes maxBuffer.
      if (err.killed && err.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new PdfUnreadable('The PDF could not be read in time.'));
      reject(new PdfUnreadable('The PDF could not be opened: it is damaged, password-protected or not a PDF.'));
    });
    // The tool may exit before reading all of a broken PDF; its exit status reports that, not EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** Reads the binary PGMs ("P5") pdftoppm writes one after another, one per page. */
function parsePgmStream(stream: Buffer): GreyImage[] {
  const images: GreyImage[] = [];
  let offset = 0;
  while (offset < stream.length) {
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(stream.subarray(offset, offset + 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm wrote something that is not a binary PGM.');
    const [width, height, maxValue] = [Number(header[1]), Number(header[2]), Number(header[3])];
    const start = offset + header[0].length;
    const end = start + width * height;
    if (maxValue > 255 || end > stream.length) throw new Error('pdftoppm wrote a truncated or 16-bit PGM.');
    images.push({ width, height, data: stream.subarray(start, end) });
    offset = end;
  }
  return images;
}

/**
 * Renders pages in greyscale, scaled so that each page's longest side is `longSide` pixels whatever the
 * page size (a huge page cannot blow up memory).
 */
export async function renderPdfPages(pdf: Buffer, options: PdfToolOptions & { longSide: number }): Promise<GreyImage[]> {
  const pages = options.lastPage - options.firstPage + 1;
  const args = ['-f', String(options.firstPage), '-l', String(options.lastPage), '-scale-to', String(options.longSide), '-gray', '-'];
  const out = await runTool('pdftoppm', args, pdf, options.timeoutMs, pages * (options.longSide ** 2 + 64));
  return parsePgmStream(out);
}

/** The text of the pages in reading order (UTF-8). */
export async function pdfText(pdf: Buffer, options: PdfToolOptions): Promise<string> {
  const args = ['-f', String(options.firstPage), '-l', String(options.lastPage), '-enc', 'UTF-8', '-', '-'];
  return (await runTool('pdftotext', args, pdf, options.timeoutMs, 4 * 1024 * 1024)).toString('utf8');
}
