/**
 * Request bodies sent with a Content-Encoding (gzip, deflate, br), honest or not. Found by the fuzz test: 300 KiB
 * of "a" sent as `Content-Encoding: br` to a JSON route is a brotli stream that decodes to 307,196 bytes and then
 * ends too early. The parser gave up at the 256 KiB limit (413) and let go of the decoder; the decoder then failed
 * on the truncated end with nobody listening, and the uncaught error took the API process down (on the public
 * buyer routes, without credentials). Each case here is followed by a request that must still be answered.
 */
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { expectError } from '../helpers/http.js';

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { code?: string; message?: string } };
}

async function send(method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const res = await fetch(`${harness().baseUrl}${path}`, { method, headers, body: new Uint8Array(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

/** The process that serves the API is still there and answering. */
async function stillAlive(): Promise<void> {
  const res = await fetch(`${harness().baseUrl}/health`);
  expect(res.status).to.be.oneOf([200, 503]);
  await res.arrayBuffer();
}

const LIMIT = 256 * 1024;
const json = (bytes: number) => Buffer.from(JSON.stringify({ x: 'a'.repeat(bytes) }));
/** Hex digits compress about 2:1, so 90% of the compressed stream still decodes to well past the limit. */
const random = (bytes: number) => Buffer.from(JSON.stringify({ x: randomBytes(bytes / 2).toString('hex') }));
const truncated = (b: Buffer) => b.subarray(0, Math.floor(b.length * 0.9));

describe('request bodies with a Content-Encoding: a 4xx error object, never a crash', () => {
  let account: BootstrapResult;
  let authed: Record<string, string>;
  before(async () => {
    account = await harness().bootstrap();
    authed = { Authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' };
  });

  const routes: [string, string, () => Record<string, string>][] = [
    ['POST', '/v1/qrs/invoices/payment-complements', () => authed],
    ['POST', '/v1/public/qrs/preview', () => ({ 'content-type': 'application/json' })],
  ];

  for (const [method, path, headers] of routes) {
    it(`${method} ${path}: the fuzz test's request (300 KiB of "a" as br: decodes past the limit, then ends truncated) is 413`, async () => {
      const res = await send(method, path, { ...headers(), 'content-type': 'application/json; charset=latin1', 'content-encoding': 'br' }, Buffer.alloc(300 * 1024, 'a'));
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error?.message).to.contain(`${LIMIT} bytes`);
      await stillAlive();
    });

    it(`${method} ${path}: gzip, deflate and br that decode past the limit (whole or truncated) are 413`, async () => {
      const big = random(LIMIT * 2);
      for (const [encoding, body] of [
        ['gzip', gzipSync(big)],
        ['gzip', truncated(gzipSync(big))],
        ['deflate', deflateSync(big)],
        ['deflate', truncated(deflateSync(big))],
        ['br', brotliCompressSync(big)],
        ['br', truncated(brotliCompressSync(big))],
        // A bomb: 50 MB of spaces in 50 KB.
        ['gzip', gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '))],
      ] as const) {
        const res = await send(method, path, { ...headers(), 'content-encoding': encoding }, body);
        expectError(res, 413, 'payload_too_large');
        await stillAlive();
      }
    });

    it(`${method} ${path}: bodies that are not what their Content-Encoding says, or are cut short, are 400 malformed_request`, async () => {
      const small = json(100);
      for (const [encoding, body] of [
        ['gzip', small],
        ['deflate', small],
        ['br', small],
        ['br', Buffer.alloc(300, 'a')],
        ['gzip', truncated(gzipSync(small))],
        ['br', truncated(brotliCompressSync(json(20_000)))],
        ['gzip', Buffer.alloc(0)],
      ] as const) {
        const res = await send(method, path, { ...headers(), 'content-encoding': encoding }, body);
        expectError(res, 400, 'malformed_request');
        await stillAlive();
      }
    });

    it(`${method} ${path}: an unknown Content-Encoding is 415, and a compressed body over the limit is 413 before it is decoded`, async () => {
      for (const encoding of ['x-garbage', 'compress', 'gzip, br']) {
        expectError(await send(method, path, { ...headers(), 'content-encoding': encoding }, json(100)), 415, 'unsupported_media_type');
        await stillAlive();
      }
      expectError(await send(method, path, { ...headers(), 'content-encoding': 'gzip' }, Buffer.alloc(LIMIT + 10_000, 'a')), 413, 'payload_too_large');
      await stillAlive();
    });
  }

  it('answers given before the body is read (415 content type, 401 no credentials) leave no decoder behind', async () => {
    const body = Buffer.alloc(300 * 1024, 'a');
    for (let i = 0; i < 3; i++) {
      expectError(
        await send('POST', '/v1/qrs/invoices/payment-complements', { ...authed, 'content-type': 'text/plain', 'content-encoding': 'br' }, body),
        415,
        'unsupported_media_type',
      );
      expectError(await send('POST', '/v1/qrs/invoices/payment-complements', { 'content-type': 'application/json', 'content-encoding': 'br' }, body), 401, 'unauthorized');
    }
    await stillAlive();
  });

  it('an honest gzip, deflate or br body is decoded: POST /v1/auth/token reads the client id and secret', async () => {
    const form = Buffer.from(`grant_type=client_credentials&client_id=${encodeURIComponent(account.clientId)}&client_secret=wrong`);
    for (const [encoding, body] of [
      ['gzip', gzipSync(form)],
      ['deflate', deflateSync(form)],
      ['br', brotliCompressSync(form)],
      ['identity', form],
    ] as const) {
      const res = await send('POST', '/v1/auth/token', { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding }, body);
      expectError(res, 401, 'invalid_client');
    }
  });

  it('multipart bodies (PUT /v1/qrs/issuers/{id}): gzip-decoded like JSON; lying, truncated or decoding past the limit is a 4xx', async () => {
    const boundary = 'b0undary';
    const multipart = (file: Buffer) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
        file,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const headers = { Authorization: `Bearer ${account.accessToken}`, 'content-type': `multipart/form-data; boundary=${boundary}` };
    const path = `/v1/qrs/issuers/${account.issuerId}`;
    // Decoded: the part is read, and the logo (not a PNG) refused by its own check, not by the parser.
    const decoded = await send('PUT', path, { ...headers, 'content-encoding': 'gzip' }, gzipSync(multipart(Buffer.from('not a png'))));
    expect(decoded.status, JSON.stringify(decoded.body)).to.equal(400);
    expect(decoded.body.error?.code).to.not.equal('malformed_request');
    expectError(await send('PUT', path, { ...headers, 'content-encoding': 'br' }, multipart(Buffer.alloc(300 * 1024, 'a'))), 400, 'malformed_request');
    await stillAlive();
    expectError(await send('PUT', path, { ...headers, 'content-encoding': 'br' }, Buffer.alloc(3 * 1024 * 1024, 'a')), 413, 'payload_too_large');
    await stillAlive();
    expectError(await send('PUT', path, { ...headers, 'content-encoding': 'gzip' }, truncated(gzipSync(multipart(Buffer.alloc(3 * 1024 * 1024, 'a'))))), 413, 'payload_too_large');
    await stillAlive();
  });
});
