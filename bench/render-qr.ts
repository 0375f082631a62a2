// The QR render alone, on one core: our encoder (PNG, and matrix only) against the qrcode package's
// toDataURL at the same size and its matrix alone (QRCode.create). Part of `npm run bench`; runnable
// alone: `npx tsx bench/render-qr.ts`. See docs/qr-render.md.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import QRCode from 'qrcode';
import { encodeQrMatrix } from '../shared/domain/qr-code/qr-matrix.js';
import { renderQrPng } from '../shared/domain/qr-code/render-qr-png.js';

export interface RenderFigures {
  pngPerSecond: number;
  matrixOnlyPerSecond: number;
  baselineToDataUrlPerSecond: number;
  baselineCreatePerSecond: number;
}

/** Shaped like qr_content: 43-character token, 22-character MAC. */
function deepLink(): string {
  return `https://factura.example.mx/q?v=1&t=${randomBytes(32).toString('base64url')}&m=${randomBytes(16).toString('base64url')}`;
}

/**
 * Calls per second of `run` over `seconds`, the first fifth of it as warm-up (JIT). Texts are made
 * up front (randomBytes would otherwise be timed) and all differ, so nothing can be cached.
 */
async function rate(seconds: number, run: (text: string) => unknown): Promise<number> {
  const texts = Array.from({ length: 4096 }, deepLink);
  let n = 0;
  const next = async (): Promise<void> => {
    const result = run(texts[n++ % texts.length]!);
    if (result instanceof Promise) await result; // only toDataURL is asynchronous
  };
  const warmUntil = performance.now() + seconds * 200;
  while (performance.now() < warmUntil) await next();
  n = 0;
  const started = performance.now();
  const until = started + seconds * 800;
  while (performance.now() < until) await next();
  return Math.round(n / ((performance.now() - started) / 1000));
}

export async function benchRenderQr(options: { seconds: number }): Promise<RenderFigures> {
  const each = options.seconds / 4;
  return {
    pngPerSecond: await rate(each, (t) => renderQrPng(t, { size: 424, margin: 4, errorCorrectionLevel: 'M' })),
    matrixOnlyPerSecond: await rate(each, (t) => encodeQrMatrix(t, 'M')),
    baselineToDataUrlPerSecond: await rate(each, (t) => QRCode.toDataURL(t, { width: 424, margin: 4, errorCorrectionLevel: 'M' })),
    baselineCreatePerSecond: await rate(each, (t) => QRCode.create(t, { errorCorrectionLevel: 'M' })),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const f = await benchRenderQr({ seconds: 2 });
  const rows: [string, number][] = [
    ['renderQrPng (424 px, 1-bit PNG)', f.pngPerSecond],
    ['encodeQrMatrix (matrix only)', f.matrixOnlyPerSecond],
    ['qrcode.toDataURL (424 px)', f.baselineToDataUrlPerSecond],
    ['qrcode.create (matrix only)', f.baselineCreatePerSecond],
  ];
  for (const [name, perSecond] of rows) process.stdout.write(`${name.padEnd(34)}${String(perSecond).padStart(8)}/s\n`);
}
