import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { verifyQrLink } from '../../shared/qr/qr-link.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { decodeQrPng } from '../helpers/decode-qr.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

/** qr_url names the public host; the test server listens on loopback. */
function local(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

describe('QR images and links', () => {
  let account: BootstrapResult;
  let qr: any;
  before(async () => {
    account = await harness().bootstrap();
    qr = (await postQr(account, qrBody(account.storeUid))).body;
  });

  it('qr_base64 is a PNG a camera decodes to exactly qr_content', async () => {
    const png = Buffer.from(qr.qr_base64.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(await decodeQrPng(png)).to.equal(qr.qr_content);
  });

  it('qr_url serves the same PNG without credentials', async () => {
    const res = await call('GET', local(qr.qr_url));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(await decodeQrPng(res.body)).to.equal(qr.qr_content);
  });

  it('qr_url is /v1/public/qrs/images/{qr_id}.png; a link of the earlier form (…/{qr_id}/image.png) still gets the PNG (issue #29)', async () => {
    const url = new URL(qr.qr_url);
    expect(url.pathname).to.equal(`/v1/public/qrs/images/${qr.qr_id as string}.png`);
    const earlier = await call('GET', `/v1/public/qrs/${qr.qr_id as string}/image.png${url.search}`);
    expect(earlier.status).to.equal(200);
    expect(earlier.headers.get('content-type')).to.equal('image/png');
    expect(await decodeQrPng(earlier.body)).to.equal(qr.qr_content);
  });

  it('refuses a tampered or expired qr_url', async () => {
    const url = new URL(qr.qr_url);
    const sig = url.searchParams.get('sig')!;
    // Change a middle character: the last one of 22 also carries padding bits that decoding ignores.
    url.searchParams.set('sig', `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`);
    const tampered = await call('GET', local(url.toString()));
    expect(tampered.status).to.equal(403);
    expect(tampered.body.error.code).to.equal('invalid_signature');

    const longer = new URL(qr.qr_url);
    longer.searchParams.set('exp', String(Number(longer.searchParams.get('exp')) + 3600));
    expect((await call('GET', local(longer.toString()))).status).to.equal(403);

    const { signedImageUrl } = await import('../../shared/qr/signed-image-url.js');
    const expired = signedImageUrl('https://x', qr.qr_id, new Date(Date.now() - 1000), harness().deps.config.urlSigningKey);
    const res = await call('GET', local(expired));
    expect(res.status).to.equal(410);
    expect(res.body.error.code).to.equal('url_expired');
  });

  it('qr_content verifies, and a tampered t or m does not', () => {
    const params = Object.fromEntries(new URL(qr.qr_content).searchParams);
    const key = harness().deps.config.qrHmacKey;
    expect(verifyQrLink(params, key)).to.deep.equal({ ok: true, token: params.t });
    const flip = (s: string) => `${s.slice(0, 5)}${s[5] === 'A' ? 'B' : 'A'}${s.slice(6)}`;
    expect(verifyQrLink({ ...params, t: flip(params.t!) }, key)).to.deep.equal({ ok: false, reason: 'bad_signature' });
    expect(verifyQrLink({ ...params, m: flip(params.m!) }, key)).to.deep.equal({ ok: false, reason: 'bad_signature' });
    expect(verifyQrLink({ ...params, m: 'short' }, key)).to.deep.equal({ ok: false, reason: 'malformed' });
    expect(verifyQrLink({ ...params, v: '2' }, key)).to.deep.equal({ ok: false, reason: 'unsupported_version' });
    expect(verifyQrLink(params, 'another-key')).to.deep.equal({ ok: false, reason: 'bad_signature' });
  });

  it('the token says nothing about the merchant or the amount', async () => {
    const again = (await postQr(account, qrBody(account.storeUid))).body;
    const t1 = new URL(qr.qr_content).searchParams.get('t');
    const t2 = new URL(again.qr_content).searchParams.get('t');
    expect(t1).to.not.equal(t2);
    expect(qr.qr_content).to.not.include(account.merchantId);
    expect(qr.qr_content).to.not.include('302');
  });
});
