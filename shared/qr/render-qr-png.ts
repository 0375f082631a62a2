// A QR symbol as a small 1-bit grayscale PNG, built directly from the module matrix
// (no RGBA canvas: one packed row per module row, repeated `scale` times). See docs/qr-render.md.
import { encodeQrMatrix } from './qr-matrix.js';
import { encodeGray1Png } from './png-gray1.js';
import type { EcLevel } from './qr-tables.js';

export interface RenderQrPngOptions {
  /** Upper bound on the image width/height in pixels; the image is the largest whole-pixel multiple below it. */
  size?: number;
  /** Quiet zone, in modules. */
  margin?: number;
  errorCorrectionLevel?: EcLevel;
}

const EC_LEVELS: readonly string[] = ['L', 'M', 'Q', 'H'];

export function renderQrPng(text: string, options: RenderQrPngOptions = {}): Buffer {
  const { size = 424, margin = 4, errorCorrectionLevel = 'M' } = options;
  if (text.length === 0) throw new RangeError('QR text is empty');
  if (!Number.isInteger(margin) || margin < 0) throw new RangeError(`margin must be a non-negative integer, got ${margin}`);
  if (!(size > 0)) throw new RangeError(`size must be positive, got ${size}`);
  if (!EC_LEVELS.includes(errorCorrectionLevel)) throw new RangeError(`unknown error correction level ${String(errorCorrectionLevel)}`);

  const matrix = encodeQrMatrix(text, errorCorrectionLevel);
  const modulesWide = matrix.size + 2 * margin;
  const scale = Math.max(1, Math.floor(size / modulesWide));
  const width = modulesWide * scale;
  const stride = 1 + Math.ceil(width / 8); // filter byte + packed pixels

  // Every byte starts white (1 bits; the padding bits past `width` are ignored by decoders);
  // filter bytes are set to 0 (None) below.
  const scanlines = Buffer.alloc(stride * width, 0xff);
  for (let y = 0; y < width; y++) scanlines[y * stride] = 0;

  const packed = Buffer.alloc(stride); // byte 0 stays 0: filter type None
  const top = margin * scale;
  for (let r = 0; r < matrix.size; r++) {
    packed.fill(0xff, 1);
    const rowStart = r * matrix.size;
    for (let c = 0; c < matrix.size; c++) {
      if (matrix.modules[rowStart + c] === 1) clearBits(packed, (margin + c) * scale, scale);
    }
    const first = (top + r * scale) * stride;
    for (let k = 0; k < scale; k++) packed.copy(scanlines, first + k * stride);
  }
  return encodeGray1Png(width, width, scanlines);
}

/** Sets `count` pixels from pixel `x` to black (0) in a scanline whose pixel bytes start at offset 1. */
function clearBits(row: Buffer, x: number, count: number): void {
  let i = x;
  const end = x + count;
  // Leading partial byte, then whole bytes, then the trailing partial byte.
  while (i < end && (i & 7) !== 0) {
    row[1 + (i >>> 3)]! &= ~(0x80 >>> (i & 7));
    i++;
  }
  while (i + 8 <= end) {
    row[1 + (i >>> 3)] = 0;
    i += 8;
  }
  while (i < end) {
    row[1 + (i >>> 3)]! &= ~(0x80 >>> (i & 7));
    i++;
  }
}
