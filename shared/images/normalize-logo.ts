/**
 * Uploaded logos: accepted only when sharp can decode them as a raster image (never by extension or
 * content type), bounded in bytes and pixels before decoding (decompression bombs), then re-encoded
 * so that what we serve is our own clean file.
 */
import sharp, { type Metadata } from 'sharp';
import type { ErrorDetail } from '../platform/errors.js';

export const LOGO_LIMITS = {
  maxBytes: 2 * 1024 * 1024,
  /** Checked from the header, before any decoding. */
  maxPixels: 25_000_000,
} as const;

/** Raster formats we take; SVG is refused (it can carry scripts). */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff']);

export class InvalidImage extends Error {
  constructor(
    readonly code: 'invalid_image' | 'image_too_large',
    message: string,
  ) {
    super(message);
  }
}

function tooManyPixels(): InvalidImage {
  return new InvalidImage('image_too_large', `The image has more than ${LOGO_LIMITS.maxPixels} pixels.`);
}

export interface LogoTarget {
  width: number;
  height: number;
  format: 'png' | 'webp';
}

/** Invoice logos go into the PDF (PNG); app logos onto the buyer's page (WebP, small). */
export const LOGO_TARGETS = {
  invoice: { width: 600, height: 300, format: 'png' },
  app: { width: 512, height: 512, format: 'webp' },
} as const satisfies Record<string, LogoTarget>;

export interface NormalizedLogo {
  data: Buffer;
  contentType: string;
  extension: string;
}

/** normalizeLogo for an upload field: the logo, or the field-level detail that refuses it. */
export async function normalizeLogoField(field: string, input: Buffer, target: LogoTarget): Promise<{ logo: NormalizedLogo } | { detail: ErrorDetail }> {
  try {
    return { logo: await normalizeLogo(input, target) };
  } catch (err) {
    if (!(err instanceof InvalidImage)) throw err;
    return { detail: { field, code: err.code, message: err.message } };
  }
}

export async function normalizeLogo(input: Buffer, target: LogoTarget): Promise<NormalizedLogo> {
  if (input.length > LOGO_LIMITS.maxBytes) throw new InvalidImage('image_too_large', `The image is larger than ${LOGO_LIMITS.maxBytes} bytes.`);
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: LOGO_LIMITS.maxPixels }).metadata();
  } catch (err) {
    if (err instanceof Error && /pixel limit/i.test(err.message)) throw tooManyPixels();
    throw new InvalidImage('invalid_image', 'The file is not an image we can read (PNG, JPEG, WebP, GIF, AVIF or TIFF).');
  }
  if (!meta.format || !ACCEPTED.has(meta.format)) throw new InvalidImage('invalid_image', `Images in ${meta.format ?? 'this'} format are not accepted; use PNG, JPEG or WebP.`);
  if (!meta.width || !meta.height || meta.width * meta.height > LOGO_LIMITS.maxPixels) throw tooManyPixels();
  try {
    const pipeline = sharp(input, { limitInputPixels: LOGO_LIMITS.maxPixels, failOn: 'error' })
      .rotate()
      .resize({ width: target.width, height: target.height, fit: 'inside', withoutEnlargement: true });
    const data = target.format === 'png' ? await pipeline.png().toBuffer() : await pipeline.webp({ quality: 85 }).toBuffer();
    return { data, contentType: `image/${target.format}`, extension: target.format };
  } catch {
    throw new InvalidImage('invalid_image', 'The image could not be decoded.');
  }
}
