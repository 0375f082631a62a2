import { request, type IncomingMessage, type Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { BUYER, newQrLink, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';

const UPLOAD_BYTES = 8 * 1024 * 1024;
const BOUNDARY = 'x-buyer-upload-order';

/**
 * Starts a CSF upload that announces 8 MB, sends only its first 64 KB and never the rest: the answer can
 * only come from a service that decided before reading the body. Resolves with the answer and its body.
 */
function partialUpload(base: string, query: string): Promise<{ status: number; body: { error?: { code: string } } }> {
  const url = new URL(`/v1/public/qrs/csf?${query}`, base);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(UPLOAD_BYTES) },
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Once answered, the server may close the socket on the unread rest of the upload.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
      });
    });
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="document"; filename="c.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    req.write(Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024 - head.length, 0x25)]));
    // Deliberately never req.end(): the remaining ~8 MB are not sent.
  });
}

describe('buyer routes: the link and its limits before the body (issue #28 items 5, 9)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  let server: Server;
  let lowLimits: string;
  before(async () => {
    account = await harness().bootstrap();
    // An API process with a low per-QR limit beside the harness's (same PostgreSQL and Redis).
    const deps = { ...harness().deps, config: { ...harness().deps.config, publicRatePerToken: 3, publicRatePerIp: 1000 } };
    server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    lowLimits = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const linkQuery = (l: Pick<QrLink, 'v' | 't' | 'm'>) => new URLSearchParams({ v: l.v, t: l.t, m: l.m }).toString();

  it('12 forged CSF uploads at once are refused (400) while their 8 MB bodies are still unsent', async () => {
    const link = await newQrLink(account);
    const forged = { ...link, m: `${link.m.startsWith('A') ? 'B' : 'A'}${link.m.slice(1)}` };
    const answers = await Promise.all(Array.from({ length: 12 }, () => partialUpload(harness().baseUrl, linkQuery(forged))));
    expect(answers.map((a) => `${a.status} ${a.body.error?.code}`)).to.deep.equal(Array<string>(12).fill('400 invalid_signature'));
    // A link without the three parameters in the query (the old form fields) is refused the same way.
    expect((await partialUpload(harness().baseUrl, '')).status).to.equal(400);
  });

  it('an upload for an expired sale, or past the per-QR limit, is refused before its body is read', async () => {
    const link = await newQrLink(account);
    await harness().deps.db('qr_transactions').where({ id: link.qrId }).update({ status: 'EXPIRED' });
    const expired = await partialUpload(harness().baseUrl, linkQuery(link));
    expect([expired.status, expired.body.error?.code]).to.deep.equal([410, 'qr_expired']);

    // The per-QR counter is the one every buyer route shares: three status reads use it up.
    const fresh = await newQrLink(account);
    for (let i = 0; i < 3; i++) expect((await fetch(`${lowLimits}/v1/public/qrs/status?${linkQuery(fresh)}`)).status).to.equal(200);
    const limited = await partialUpload(lowLimits, linkQuery(fresh));
    expect([limited.status, limited.body.error?.code]).to.deep.equal([429, 'rate_limited']);
  });

  it('counts POST preview and confirm against the per-QR limit (PUBLIC_RATE_PER_TOKEN) by the token in their body', async () => {
    const [a, b] = [await newQrLink(account), await newQrLink(account)];
    const post = (path: string, l: QrLink) =>
      fetch(`${lowLimits}/v1/public/qrs/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ v: l.v, t: l.t, m: l.m, customer: BUYER }),
      });
    const statuses: number[] = [];
    for (const path of ['preview', 'preview', 'preview', 'preview', 'confirm']) statuses.push((await post(path, a)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    const limited = await post('confirm', a);
    expect(((await limited.json()) as { error: { code: string } }).error.code).to.equal('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 120);
    // Nothing of the limited confirmations was written; another QR is not affected.
    expect(await harness().deps.db('invoices').where({ transaction_id: a.qrId })).to.have.length(0);
    expect((await post('preview', b)).status).to.equal(200);
  });
});
