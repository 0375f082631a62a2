'use strict';
// The jsQR side of qr-decoder.ts. Plain CommonJS because tsx does not load TypeScript in worker threads.
const { parentPort } = require('node:worker_threads');
const jsQR = require('jsqr');

parentPort.on('message', ({ grey, width, height, inversion }) => {
  const rgba = new Uint8ClampedArray(grey.length * 4);
  for (let i = 0, j = 0; i < grey.length; i++, j += 4) {
    rgba[j] = rgba[j + 1] = rgba[j + 2] = grey[i];
    rgba[j + 3] = 255;
  }
  let text = null;
  try {
    text = jsQR(rgba, width, height, { inversionAttempts: inversion })?.data ?? null;
  } catch {
    // jsQR throws on some degenerate images: for the caller that is "no QR here".
  }
  parentPort.postMessage(text);
});
