/**
 * Finds the RFC and idCIF of SAT's tax-status certificate (CSF) in an uploaded file: the CSF's PDF or a
 * phone photo of it. The QR is the source (its layout does not change); the PDF's text is only a fallback,
 * for PDFs whose QR does not decode. Everything happens in memory; nothing is stored.
 */
import sharp, { type Sharp } from 'sharp';
import { ID_CIF_SOURCE, parseCsfQrText, RFC_SOURCE, type CsfKey } from './csf-qr.js';
import { pdfText, PdfUnreadable, renderPdfPages, type GreyImage } from './pdf-tools.js';
import { QrDecoder, type Inversion } from './qr-decoder.js';

export interface CsfDocumentKey extends CsfKey {
  via: 'qr' | 'text';
}

export class CsfDocumentUnreadable extends Error {
  constructor(
    readonly reason: 'not_a_document' | 'no_csf_found',
    message: string,
  ) {
    super(message);
    this.name = 'CsfDocumentUnreadable';
  }
}

/** The CSF is one or two pages; its QR is on the first. */
const PDF_PAGES = { firstPage: 1, lastPage: 2 };
/** ≈150 dpi on a letter or A4 page: about 4 pixels per module of the CSF's QR. */
const PDF_LONG_SIDE = 1700;
/** Checked from the image header before decoding: a 12 MP phone photo passes, a pixel bomb does not. */
const MAX_INPUT_PIXELS = 25_000_000;
/** Raster formats a phone or scanner produces ('heif' is how sharp names AVIF); SVG is refused (it is a document, not a photo). */
const IMAGE_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'tiff']);
/** Decoding a full-resolution photo costs seconds; a CSF's QR in a photo of the whole page survives 1600 px. */
const WORKING_SIDE = 1600;
/** A blurry, grainy QR that fills the frame decodes better (and much faster) smaller. */
const SMALL_SIDE = 800;

/** Where SAT prints the CSF's QR: the upper part of its first page (the header with the taxpayer's id). */
const TOP_BAND = 0.3;

/** The QR search stops this share of the time before the deadline, so that the PDF's text can still be read. */
const TEXT_SHARE = 0.2;

const TEXT_RFC = new RegExp(`RFC:?\\s*(${RFC_SOURCE})(?![A-Z0-9])`);
const TEXT_ID_CIF = new RegExp(`id\\s*CIF:?\\s*(${ID_CIF_SOURCE})(?![0-9])`, 'i');

/**
 * Reads the RFC and idCIF of a CSF PDF or photo within about `timeoutMs`. Throws CsfDocumentUnreadable
 * when the file is neither a readable PDF nor a readable image, or when it holds no CSF.
 */
export async function readCsfDocument(file: Buffer, options: { timeoutMs: number }): Promise<CsfDocumentKey> {
  if (file.length === 0) throw new CsfDocumentUnreadable('not_a_document', 'The file is empty.');
  const deadline = Date.now() + options.timeoutMs;
  const decoder = new QrDecoder(deadline - options.timeoutMs * TEXT_SHARE);
  try {
    return isPdf(file) ? await readPdf(file, deadline, decoder) : await readImage(file, decoder);
  } finally {
    await decoder.close();
  }
}

/** PDF readers accept the header anywhere in the first 1024 bytes; so do we. */
function isPdf(file: Buffer): boolean {
  return file.subarray(0, 1024).includes('%PDF-');
}

function msLeft(deadline: number): number {
  // execFile treats a timeout of 0 as "none": an exhausted budget still gets a (tiny) limit.
  return Math.max(1, deadline - Date.now());
}

async function readPdf(pdf: Buffer, deadline: number, decoder: QrDecoder): Promise<CsfDocumentKey> {
  try {
    const pages = await renderPdfPages(pdf, { ...PDF_PAGES, longSide: PDF_LONG_SIDE, timeoutMs: msLeft(deadline) });
    for (const page of pages) {
      const key = parseCsfQrText((await findQrText(pageAttempts(page), decoder)) ?? '');
      if (key) return { ...key, via: 'qr' };
    }
    const key = csfKeyFromText(await pdfText(pdf, { ...PDF_PAGES, timeoutMs: msLeft(deadline) }));
    if (key) return { ...key, via: 'text' };
  } catch (err) {
    if (err instanceof PdfUnreadable) throw new CsfDocumentUnreadable('not_a_document', err.message);
    throw err;
  }
  throw new CsfDocumentUnreadable('no_csf_found', 'The PDF is not a tax-status certificate (CSF): it has neither its QR nor its RFC and idCIF.');
}

/** The printed "RFC: …" and "idCIF: …" lines; both must be there. */
export function csfKeyFromText(text: string): CsfKey | undefined {
  const nfc = text.normalize('NFC');
  const rfc = TEXT_RFC.exec(nfc)?.[1];
  const idCif = TEXT_ID_CIF.exec(nfc)?.[1];
  return rfc && idCif ? { rfc, idCif } : undefined;
}

async function readImage(file: Buffer, decoder: QrDecoder): Promise<CsfDocumentKey> {
  const text = await findQrText(imageAttempts(await workingImage(file)), decoder);
  if (text === undefined) throw new CsfDocumentUnreadable('no_csf_found', 'No tax-status certificate (CSF) QR was found in the image.');
  const key = parseCsfQrText(text);
  if (!key) throw new CsfDocumentUnreadable('no_csf_found', 'The QR in the image is not the QR of a tax-status certificate (CSF).');
  return { ...key, via: 'qr' };
}

/** One way of looking for the QR. */
interface Attempt {
  image: () => Promise<GreyImage>;
  inversion: Inversion;
}

/**
 * A rendered page is clean; a scanned one may be grey and low in contrast. SAT prints the QR in the
 * page's top band, and jsQR's time grows with the area: that band first, then the whole page.
 */
function pageAttempts(page: GreyImage): Attempt[] {
  return [
    { image: async () => topBand(page), inversion: 'dontInvert' },
    { image: async () => page, inversion: 'dontInvert' },
    { image: () => normalized(page), inversion: 'attemptBoth' },
  ];
}

/**
 * Cheapest first (jsQR's time grows fast with size and grain): a QR that fills the frame, blurry, grainy,
 * dim or inverted, decodes small; a whole page photographed from afar needs the working size.
 */
function imageAttempts(working: GreyImage): Attempt[] {
  return [
    { image: () => smallNormalized(working), inversion: 'attemptBoth' },
    { image: async () => working, inversion: 'dontInvert' },
    { image: () => normalized(working), inversion: 'attemptBoth' },
  ];
}

/** The text of the first QR an attempt finds (the decoder gives up at its deadline). */
async function findQrText(attempts: Attempt[], decoder: QrDecoder): Promise<string | undefined> {
  for (const attempt of attempts) {
    // Past the deadline, preparing another image (sharp, on a whole page) would eat the time left for the PDF's text.
    if (decoder.expired) return undefined;
    const text = await decoder.decode(await attempt.image(), attempt.inversion);
    if (text !== undefined) return text;
  }
  return undefined;
}

function tooManyPixels(): CsfDocumentUnreadable {
  return new CsfDocumentUnreadable('not_a_document', `The image has more than ${MAX_INPUT_PIXELS} pixels; upload the CSF's PDF or a smaller photo.`);
}

/** The upload as a greyscale image no larger than WORKING_SIDE, upright (EXIF orientation applied). */
async function workingImage(file: Buffer): Promise<GreyImage> {
  let format: string | undefined;
  let pixels: number;
  try {
    const meta = await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.height ?? 0);
  } catch (err) {
    if (err instanceof Error && /pixel limit/i.test(err.message)) throw tooManyPixels();
    throw new CsfDocumentUnreadable('not_a_document', 'The file is neither a PDF nor an image (JPEG, PNG or WebP).');
  }
  if (!format || !IMAGE_FORMATS.has(format))
    throw new CsfDocumentUnreadable('not_a_document', `Files in ${format ?? 'this'} format are not accepted; upload the CSF's PDF or a photo of it.`);
  if (pixels === 0 || pixels > MAX_INPUT_PIXELS) throw tooManyPixels();
  try {
    return await toGrey(
      sharp(file, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).rotate().resize({ width: WORKING_SIDE, height: WORKING_SIDE, fit: 'inside', withoutEnlargement: true }),
    );
  } catch {
    throw new CsfDocumentUnreadable('not_a_document', 'The image could not be decoded.');
  }
}

/** The top TOP_BAND share of a page, rows being contiguous (no copy). */
function topBand(page: GreyImage): GreyImage {
  const height = Math.ceil(page.height * TOP_BAND);
  return { width: page.width, height, data: page.data.subarray(0, page.width * height) };
}

function fromGrey(image: GreyImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } });
}

/** Stretched contrast for dim or washed-out photos (sharpening would amplify grain and slow jsQR down). */
function normalized(image: GreyImage): Promise<GreyImage> {
  return toGrey(fromGrey(image).normalise());
}

function smallNormalized(image: GreyImage): Promise<GreyImage> {
  return toGrey(fromGrey(image).resize({ width: SMALL_SIDE, height: SMALL_SIDE, fit: 'inside', withoutEnlargement: true }).normalise());
}

async function toGrey(pipeline: Sharp): Promise<GreyImage> {
  // Transparent pixels become white, as the paper behind a QR is.
  const { data, info } = await pipeline.flatten({ background: '#ffffff' }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
