import { expect } from 'chai';
import type { Server } from 'node:http';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { SHORT_CODE_ALPHABET } from '../../shared/domain/qr-code/short-code.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe("short code: the ticket's typed alternative to the QR", () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  const newQr = async () => {
    const res = await postQr(account, qrBody(account.storeUid));
    expect(res.status).to.equal(201);
    return res.body as { qr_id: string; short_code: string; qr_content: string };
  };

  it('comes with every QR: 10 symbols without look-alikes, shown as XXXXX-XXXXX, the same on GET and on replay', async () => {
    const created = await newQr();
    expect(created.short_code).to.match(new RegExp(`^[${SHORT_CODE_ALPHABET}]{5}-[${SHORT_CODE_ALPHABET}]{5}$`));
    expect(created.short_code).to.not.match(/[01OIL]/);
    const read = await call('GET', `/v1/qrs/${created.qr_id}`, { headers: { 'X-API-Key': account.apiKey } });
    expect(read.body.short_code).to.equal(created.short_code);
    const row = await harness().deps.db('qr_transactions').where({ id: created.qr_id }).first('short_code');
    expect(row.short_code).to.equal(created.short_code.replace('-', ''));
    const codes = new Set([created.short_code, (await newQr()).short_code, (await newQr()).short_code]);
    expect(codes.size).to.equal(3);
  });

  it('GET /v1/public/qrs/code/{code} answers the QR link, typed in any case with spaces or without the dash', async () => {
    const created = await newQr();
    for (const typed of [created.short_code, created.short_code.toLowerCase().replace('-', ' '), created.short_code.replace('-', '')]) {
      const res = await call('GET', `/v1/public/qrs/code/${encodeURIComponent(typed)}`);
      expect(res.status, typed).to.equal(200);
      expect(res.body).to.deep.equal({ qr_content: created.qr_content });
    }
  });

  it('refuses what cannot be a code (400) and a code no sale has (404), as error objects', async () => {
    expectError(await call('GET', '/v1/public/qrs/code/ABC'), 400, 'invalid_short_code');
    expectError(await call('GET', '/v1/public/qrs/code/OOOOO-IIIII'), 400, 'invalid_short_code');
    expectError(await call('GET', '/v1/public/qrs/code/ZZZZZ-ZZZZZ'), 404, 'short_code_not_found');
  });

  it("GET /q?code= redirects (303) to the sale's page, without caching or leaking the link", async () => {
    const created = await newQr();
    const res = await fetch(`${harness().baseUrl}/q?code=${encodeURIComponent(created.short_code.toLowerCase())}`, { redirect: 'manual' });
    expect(res.status).to.equal(303);
    const target = new URL(created.qr_content);
    expect(res.headers.get('location')).to.equal(`${target.pathname}${target.search}`);
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  describe('with the lookup limit', () => {
    let server: Server;
    let base: string;
    before(async () => {
      // An API process with a small code limit, beside the harness's (same PostgreSQL and Redis).
      const deps = { ...harness().deps, config: { ...harness().deps.config, publicCodeRatePerIp: 3 } };
      server = createApp(deps).listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('answers 429 with Retry-After once an IP has tried too many codes, on the API and on the page alike', async () => {
      // With 3 a minute, 8 tries see a 429 even if a minute boundary resets the window once.
      let limited: Response | undefined;
      for (let i = 0; i < 8 && !limited; i++) {
        const res = await fetch(`${base}/v1/public/qrs/code/ZZZZZ-ZZZZ${SHORT_CODE_ALPHABET[i]}`);
        if (res.status === 429) limited = res;
        else expect(res.status).to.equal(404);
      }
      expect(limited, 'no 429 within 8 tries').to.not.equal(undefined);
      // A sliding window weighs the last two minutes: the wait can be up to two of them.
      expect(Number(limited!.headers.get('retry-after'))).to.be.within(1, 120);
      expect(((await limited!.json()) as { error: { code: string } }).error.code).to.equal('rate_limited');
      // The page shares the counter: typing codes there is no way around it.
      const page = await fetch(`${base}/q?code=ZZZZZ-ZZZZZ`, { redirect: 'manual' });
      expect(page.status).to.equal(429);
      expect(page.headers.get('content-type')).to.contain('text/html');
      expect(await page.text()).to.contain('Demasiados intentos');
    });
  });
});
