// The lean server's QR: rendered in process to a PNG. By default with the project's own encoder (a true
// 1-bit grayscale PNG, the leanest render there is here); BENCH_LEAN_QR=qrcode takes the stock `qrcode`
// package instead (toBuffer: an 8-bit RGBA PNG through pngjs, slower), the lean server of issue #31's table.
import QRCode from 'qrcode';
import { renderQrPng } from '../../shared/domain/qr-code/render-qr-png.js';

export type LeanEncoder = 'project' | 'qrcode';

export function leanEncoder(value: string | undefined): LeanEncoder {
  if (value === undefined || value === '' || value === 'project') return 'project';
  if (value === 'qrcode') return 'qrcode';
  throw new Error(`BENCH_LEAN_QR: "project" or "qrcode", not "${value}"`);
}

/** The project's render options (api/qrs/render-qr.ts): 424 px at most, quiet zone 4, level M. */
export function renderLeanQr(encoder: LeanEncoder, text: string): Promise<Buffer> {
  if (encoder === 'project') return Promise.resolve(renderQrPng(text, { size: 424, margin: 4, errorCorrectionLevel: 'M' }));
  return QRCode.toBuffer(text, { width: 424, margin: 4, errorCorrectionLevel: 'M' });
}
