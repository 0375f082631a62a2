// The lean server's QR: rendered in process to a 1-bit grayscale PNG at the project's size (424 px at most,
// quiet zone 4, level M). The module matrix comes from the project's own encoder by default, the leanest
// render here; BENCH_LEAN_QR=qrcode takes it from the stock `qrcode` package (QRCode.create, slower) as the
// lean server of issue #31's table did. Not qrcode's toBuffer: it writes 8-bit RGBA through pngjs at
// ~60 PNG/s a core (docs/qr-render.md), which would measure that library, not the work.
import QRCode from 'qrcode';
import { encodeGray1Png } from '../../shared/domain/qr-code/png-gray1.js';
import { renderQrPng } from '../../shared/domain/qr-code/render-qr-png.js';

export type LeanEncoder = 'project' | 'qrcode';

export function leanEncoder(value: string | undefined): LeanEncoder {
  if (value === undefined || value === '' || value === 'project') return 'project';
  if (value === 'qrcode') return 'qrcode';
  throw new Error(`BENCH_LEAN_QR: "project" or "qrcode", not "${value}"`);
}

const SIZE = 424;
const MARGIN = 4;
/** PNG filter type Up: a row equal to the one above is all zeros after its filter byte. */
const UP = 2;

/** The stock library's matrix, packed one bit per pixel; repeated pixel rows as Up rows (as renderQrPng does). */
function stockQrPng(text: string): Buffer {
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules;
  const wide = size + 2 * MARGIN;
  const scale = Math.max(1, Math.floor(SIZE / wide));
  const width = wide * scale;
  const stride = 1 + Math.ceil(width / 8);
  const scanlines = Buffer.alloc(stride * width, 0);
  const row = Buffer.alloc(stride);
  for (let y = 0; y < width; y++) {
    const r = Math.floor(y / scale) - MARGIN;
    if (y % scale !== 0) {
      scanlines[y * stride] = UP;
      continue;
    }
    row.fill(0xff, 1);
    if (r >= 0 && r < size) {
      for (let c = 0; c < size; c++) {
        if (data[r * size + c] !== 1) continue;
        for (let x = (MARGIN + c) * scale; x < (MARGIN + c + 1) * scale; x++) row[1 + (x >>> 3)]! &= ~(0x80 >>> (x & 7));
      }
    }
    row.copy(scanlines, y * stride);
  }
  return encodeGray1Png(width, width, scanlines);
}

export function renderLeanQr(encoder: LeanEncoder, text: string): Buffer {
  return encoder === 'project' ? renderQrPng(text, { size: SIZE, margin: MARGIN, errorCorrectionLevel: 'M' }) : stockQrPng(text);
}
