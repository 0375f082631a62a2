import jsQRModule from 'jsqr';
import sharp from 'sharp';

// jsqr is CommonJS: under NodeNext its default export is reached through `.default`.
const jsQR = jsQRModule.default;

/** Decodes a QR PNG the way a phone camera would (any decoder, not ours); undefined when unreadable. */
export async function decodeQrPng(png: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}
