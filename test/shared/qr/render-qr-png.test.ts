import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import QRCode from 'qrcode';
import { encodeQrMatrix } from '../../../shared/qr/qr-matrix.js';
import { renderQrPng } from '../../../shared/qr/render-qr-png.js';
import { decodeQrPng } from '../../helpers/decode-qr.js';

const link = () => `https://factura.example.mx/q?v=1&t=${randomBytes(32).toString('base64url').slice(0, 43)}&m=${randomBytes(16).toString('base64url')}`;

function ihdr(png: Buffer) {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bitDepth: png[24], colourType: png[25] };
}

describe('QR PNG rendering', () => {
  it('decodes, with an independent decoder, to exactly the text: links, short, long, UTF-8', async () => {
    const texts = [link(), link(), 'A', '12345678901234567890', 'x'.repeat(600), 'Señor Núñez — factura electrónica ¿ñ?', link() + '#end'];
    for (const text of texts) expect(await decodeQrPng(renderQrPng(text)), text).to.equal(text);
  });

  it('decodes at every error correction level', async () => {
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      const text = link();
      expect(await decodeQrPng(renderQrPng(text, { errorCorrectionLevel: level })), level).to.equal(text);
    }
  });

  it('is a 1-bit grayscale PNG no wider than asked, a whole number of pixels per module', () => {
    const text = link();
    const png = renderQrPng(text, { size: 424, margin: 4 });
    const header = ihdr(png);
    const modules = encodeQrMatrix(text, 'M').size + 8;
    expect(png.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
    expect(header).to.include({ bitDepth: 1, colourType: 0 });
    expect(header.width).to.equal(header.height);
    expect(header.width).to.be.at.most(424);
    expect(header.width % modules).to.equal(0);
    expect(header.width).to.be.above(424 - modules);
  });

  it('builds the same symbol as the qrcode package (byte mode) whenever both pick the same mask', () => {
    let compared = 0;
    for (let i = 0; i < 60; i++) {
      const text = link();
      const ours = encodeQrMatrix(text, 'M');
      // Our encoder writes one byte-mode segment; qrcode would otherwise mix in numeric segments.
      const theirs = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
      expect(ours.version).to.equal(theirs.version);
      if (ours.mask !== theirs.maskPattern) continue; // mask scoring differs slightly; both masks are valid
      compared++;
      expect(Array.from(ours.modules)).to.deep.equal(Array.from(theirs.modules.data, (m) => (m ? 1 : 0)));
    }
    expect(compared).to.be.above(0);
  });

  it('refuses arguments it cannot render', () => {
    expect(() => renderQrPng('')).to.throw(RangeError);
    expect(() => renderQrPng('x', { margin: -1 })).to.throw(RangeError);
    expect(() => renderQrPng('x', { size: 0 })).to.throw(RangeError);
  });
});
