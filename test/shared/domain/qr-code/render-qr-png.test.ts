import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import QRCode, { type BitMatrix, type QRCodeMaskPattern } from 'qrcode';
import { encodeQrMatrix } from '../../../../shared/domain/qr-code/qr-matrix.js';
import { maskPenalty } from '../../../../shared/domain/qr-code/qr-penalty.js';
import { emptyPlanes, setModule, type Planes } from '../../../../shared/domain/qr-code/qr-planes.js';
import { renderQrPng } from '../../../../shared/domain/qr-code/render-qr-png.js';
import { decodeQrPng } from '../../../helpers/decode-qr.js'; // sharp → RGBA → jsQR

// qrcode's own N1 (runs) and N2 (2×2 blocks) scoring: internal, untyped, so typed here.
const qrcodeMask = createRequire(import.meta.url)('qrcode/lib/core/mask-pattern.js') as {
  getPenaltyN1(m: BitMatrix): number;
  getPenaltyN2(m: BitMatrix): number;
};

/** Shaped like qr_content: 43-character token, 22-character MAC. */
const link = (): string => `https://factura.example.mx/q?v=1&t=${randomBytes(32).toString('base64url')}&m=${randomBytes(16).toString('base64url')}`;

function ihdr(png: Buffer) {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bitDepth: png[24], colourType: png[25] };
}

/** One byte-mode segment, as our encoder writes (qrcode would otherwise mix in numeric segments). */
const byteSegment = (text: string) => [{ data: Buffer.from(text, 'utf8'), mode: 'byte' as const }];

function planesOf(m: BitMatrix): Planes {
  const p = emptyPlanes(m.size);
  for (let r = 0; r < m.size; r++) for (let c = 0; c < m.size; c++) if (m.get(r, c)) setModule(p, r, c, true);
  return p;
}

/**
 * Module-by-module N3 + N4 as qr-penalty.ts reads ISO 18004: a 1:1:3:1:1 pattern with 4 light modules
 * before or after it scores 40 once (outside the symbol is light); 10 per full 5 % away from half dark.
 */
function referenceN3N4(m: BitMatrix): number {
  const { size } = m;
  let points = 0;
  for (const across of [true, false]) {
    for (let line = 0; line < size; line++) {
      const dark = (k: number): boolean => k >= 0 && k < size && (across ? m.get(line, k) : m.get(k, line)) === 1;
      const light4 = (from: number): boolean => [0, 1, 2, 3].every((i) => !dark(from + i));
      for (let k = 0; k + 7 <= size; k++) {
        const finderLike = [1, 0, 1, 1, 1, 0, 1].every((v, i) => dark(k + i) === (v === 1));
        if (finderLike && (light4(k - 4) || light4(k + 7))) points += 40;
      }
    }
  }
  const darkCount = m.data.reduce((sum, v) => sum + v, 0);
  return points + 10 * Math.floor(Math.abs((darkCount * 100) / (size * size) - 50) / 5);
}

describe('QR PNG rendering', () => {
  it('decodes, with an independent decoder (jsQR), to exactly the text: links, short, long, UTF-8', async () => {
    const long = randomBytes(450).toString('base64url'); // 600 characters
    expect(encodeQrMatrix(long, 'M').version).to.equal(19); // many blocks, 16-bit length, version info
    const texts = [link(), link(), 'A', 'hola', long, 'Señor Núñez — factura electrónica ¿ñ? Ü'];
    for (const text of texts) expect(await decodeQrPng(renderQrPng(text)), text).to.equal(text);
  });

  it('decodes at every error correction level', async () => {
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      const text = link();
      expect(await decodeQrPng(renderQrPng(text, { errorCorrectionLevel: level })), level).to.equal(text);
    }
  });

  it('is a 1-bit grayscale PNG no wider than asked, a whole number of pixels per module', () => {
    for (const [size, margin] of [
      [424, 4],
      [300, 2],
      [1000, 0],
    ] as const) {
      const text = link();
      const png = renderQrPng(text, { size, margin });
      const header = ihdr(png);
      const modules = encodeQrMatrix(text, 'M').size + 2 * margin;
      expect(png.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
      expect(header).to.include({ bitDepth: 1, colourType: 0 });
      expect(header.height).to.equal(header.width);
      expect(header.width).to.be.at.most(size);
      expect(header.width % modules).to.equal(0);
      expect(header.width).to.be.above(size - modules); // the largest whole scale that fits
    }
  });

  it('matches the qrcode package: same version, and the identical matrix for the same mask', () => {
    const texts = [...Array.from({ length: 20 }, link), 'A', 'Señor Núñez ¿ñ?', 'x'.repeat(600)];
    for (const text of texts) {
      const ours = encodeQrMatrix(text, 'M');
      expect(QRCode.create(text, { errorCorrectionLevel: 'M' }).version, text).to.equal(ours.version);
      const theirs = QRCode.create(byteSegment(text), { errorCorrectionLevel: 'M', maskPattern: ours.mask as QRCodeMaskPattern });
      expect(Array.from(ours.modules), text).to.deep.equal(Array.from(theirs.modules.data));
    }
  });

  // qrcode chooses another mask for about 4 symbols in 10: it counts N3 only inside the symbol, and
  // twice when light on both sides, and rounds N4 differently. With one set of rules the choice agrees.
  it('scores masks like a module-by-module reference and picks the lowest', () => {
    for (let i = 0; i < 12; i++) {
      const text = link();
      const candidates = Array.from({ length: 8 }, (_, mask) => QRCode.create(byteSegment(text), { errorCorrectionLevel: 'M', maskPattern: mask as QRCodeMaskPattern }).modules);
      const reference = candidates.map((m) => qrcodeMask.getPenaltyN1(m) + qrcodeMask.getPenaltyN2(m) + referenceN3N4(m));
      expect(
        candidates.map((m) => maskPenalty(planesOf(m))),
        text,
      ).to.deep.equal(reference);
      expect(encodeQrMatrix(text, 'M').mask, text).to.equal(reference.indexOf(Math.min(...reference)));
    }
  });

  it('refuses arguments it cannot render', () => {
    expect(() => renderQrPng('')).to.throw(RangeError);
    expect(() => renderQrPng('x', { margin: -1 })).to.throw(RangeError);
    expect(() => renderQrPng('x', { size: 0 })).to.throw(RangeError);
    expect(() => renderQrPng('x'.repeat(1300), { errorCorrectionLevel: 'H' })).to.throw(RangeError); // > version 40-H
  });
});
