import { crc32 } from 'node:zlib';
import { expect } from 'chai';
import sharp from 'sharp';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { encodeGray1Png } from '../../shared/domain/qr-code/png-gray1.js';
import { harness } from '../helpers/harness.js';
import { storedFileCount } from '../helpers/stored-files.js';
import { call, callForm, expectError } from '../helpers/http.js';

async function upload(account: BootstrapResult, parts: Record<string, Buffer | string>, merchantId = account.merchantId) {
  const form = Object.fromEntries(Object.entries(parts).map(([name, v]) => [name, typeof v === 'string' ? v : { data: v, fileName: `${name}.bin` }]));
  return callForm('POST', `/v1/qrs/merchants/${merchantId}/logos`, account.accessToken, form);
}

/** A PNG whose header claims 30,000 × 30,000 pixels (900 M) while the file is tiny: a decompression bomb's shape. */
function bombHeader(): Buffer {
  const png = encodeGray1Png(8, 8, Buffer.alloc(8 * 2));
  const out = Buffer.from(png);
  out.writeUInt32BE(30_000, 16);
  out.writeUInt32BE(30_000, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29); // IHDR's CRC covers its type and data
  return out;
}

describe('merchant logos', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('accepts real images, normalizes them and serves them from public URLs; returns the Merchant', async () => {
    const big = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#cc3300' } })
      .jpeg()
      .toBuffer();
    const res = await upload(account, { invoiceLogo: big, appLogo: big, logoAnimation: 'BOUNCE' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ merchantId: account.merchantId, logoAnimation: 'BOUNCE', invoiceLogoFileName: 'invoiceLogo.bin', appLogoFileName: 'appLogo.bin' });
    for (const [url, format, max] of [
      [res.body.invoiceLogoUrl, 'png', 600],
      [res.body.appLogoUrl, 'webp', 512],
    ] as const) {
      const path = new URL(url).pathname;
      const got = await call('GET', path);
      expect(got.status).to.equal(200);
      expect(got.headers.get('content-type')).to.equal(`image/${format}`);
      const meta = await sharp(got.body as Buffer).metadata();
      expect(meta.format).to.equal(format);
      expect(meta.width).to.be.at.most(max);
    }
    const summary = await call('GET', `/v1/qrs/merchants?issuerId=${account.issuerId}`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(summary.body.content[0].appLogoUrl).to.equal(res.body.appLogoUrl);
  });

  it('refuses what is not an image, a pixel bomb, a bad animation, and stores nothing', async () => {
    const before = await storedFileCount('logos');
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const res = await upload(account, { invoiceLogo: Buffer.from('%PDF-1.4 not an image'), appLogo: bombHeader(), logoAnimation: 'SPIN' });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.have.members([
      'invoiceLogo:invalid_image',
      'appLogo:image_too_large',
      'logoAnimation:invalid_value',
    ]);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    expect((await upload(account, { appLogo: svg, invoiceLogo: png })).body.error.details).to.deep.equal([
      { field: 'appLogo', code: 'invalid_image', message: 'Images in svg format are not accepted; use PNG, JPEG or WebP.' },
    ]);
    expectError(await upload(account, {}), 400, 'validation_failed');
    expect(await storedFileCount('logos')).to.equal(before);
  });

  it("answers 413 over the size limit and 404 for another account's merchant", async () => {
    const tooLarge = await upload(account, { invoiceLogo: Buffer.alloc(2 * 1024 * 1024 + 1, 1) });
    expectError(tooLarge, 413, 'payload_too_large');
    expect(tooLarge.body.error.message).to.include(`${2 * 1024 * 1024} bytes`);
    const other = await harness().bootstrap();
    expectError(await upload(other, { logoAnimation: 'NONE' }, account.merchantId), 404, 'merchant_not_found');
  });
});
