// The QR render alone, per core: our encoder (PNG and matrix only) against the qrcode package's
// toDataURL at the same size and its matrix (qrcode.create). Part of `npm run bench`; runnable alone:
// `npx tsx bench/render-qr.ts`.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import QRCode from 'qrcode';
import { encodeQrMatrix } from '../shared/qr/qr-matrix.js';
import { renderQrPng } from '../shared/qr/render-qr-png.js';

export interface RenderFigures {
  pngPerSecond: number;
  matrixOnlyPerSecond: number;
  baselineToDataUrlPerSecond: number;
  baselineCreatePerSecond: number;
}

/** A fresh deep link per iteration, shaped like qr_content (no caching can help). */
function links(count: number): string[] {
  return Array.from({ length: count }, () => `https://factura.example.mx/q?v=1&t=${randomBytes(16).toString('base64url')}&m=${randomBytes(16).toString('base64url')}`);
}

async function rate(seconds: number, run: (text: string) => unknown): Promise<number> {
  const texts = links(1024);
  for (let i = 0; i < 50; i++) await run(texts[i]!); // warm-up
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  let n = 0;
  while (performance.now() < until) {
    await run(texts[n % texts.length]!);
    n++;
  }
  return Math.round(n / ((performance.now() - started) / 1000));
}

export async function benchRenderQr(options: { seconds: number }): Promise<RenderFigures> {
  const each = options.seconds / 4;
  return {
    pngPerSecond: await rate(each, (t) => renderQrPng(t)),
    matrixOnlyPerSecond: await rate(each, (t) => encodeQrMatrix(t, 'M')),
    baselineToDataUrlPerSecond: await rate(each, (t) => QRCode.toDataURL(t, { width: 424, margin: 4, errorCorrectionLevel: 'M' })),
    baselineCreatePerSecond: await rate(each, (t) => QRCode.create(t, { errorCorrectionLevel: 'M' })),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await benchRenderQr({ seconds: 8 });
  process.stdout.write(`our renderQrPng (424 px, 1-bit PNG)   ${figures.pngPerSecond}/s\n`);
  process.stdout.write(`our encodeQrMatrix (matrix only)      ${figures.matrixOnlyPerSecond}/s\n`);
  process.stdout.write(`qrcode.toDataURL (424 px)             ${figures.baselineToDataUrlPerSecond}/s\n`);
  process.stdout.write(`qrcode.create (matrix only)           ${figures.baselineCreatePerSecond}/s\n`);
}
