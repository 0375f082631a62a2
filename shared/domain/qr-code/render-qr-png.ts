// A QR symbol as a small 1-bit grayscale PNG, built directly from the module matrix
// (no RGBA canvas: one packed row per module row, then `scale - 1` rows of the Up filter). See docs/qr-render.md.
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
/** PNG filter types (PNG spec, 9.2): None, and Up (each byte minus the byte above). */
const NONE = 0;
const UP = 2;

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

  // A row equal to the one above is written with PNG's Up filter: a filter byte 2 and all-zero
  // differences (the buffer's zeros). Deflate then meets long runs of zeros and finishes in about
  // half the time for the same size. The other rows are filter None (0) with their pixels.
  const scanlines = Buffer.alloc(stride * width, 0);
  for (let y = 0; y < width; y++) scanlines[y * stride] = UP;
  const white = Buffer.alloc(stride, 0xff);
  white[0] = NONE;
  const top = margin * scale;
  white.copy(scanlines, 0); // the quiet zone above, under the Up rows that repeat it
  white.copy(scanlines, (top + matrix.size * scale) * stride); // and below

  const packed = Buffer.alloc(stride); // byte 0 stays 0: filter type None
  for (let r = 0; r < matrix.size; r++) {
    packed.fill(0xff, 1);
    const rowStart = r * matrix.size;
    for (let c = 0; c < matrix.size; c++) {
      if (matrix.modules[rowStart + c] === 1) clearBits(packed, (margin + c) * scale, scale);
    }
    // The module row's first pixel row carries the pixels; its other `scale - 1` rows repeat it (Up).
    packed.copy(scanlines, (top + r * scale) * stride);
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
