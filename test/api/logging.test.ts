import { expect } from 'chai';
import { harness } from '../helpers/harness.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe('request logs', () => {
  it('carry the request id and never the API key or the HMAC keys', async () => {
    const account = await harness().bootstrap();
    const res = await postQr(account, qrBody(account.storeUid));
    const requestId = res.headers.get('x-request-id')!;
    const bad = await postQr({ ...account, apiKey: `${account.apiKey}x` }, qrBody(account.storeUid));
    expect(bad.status).to.equal(401);
    const text = harness().logs.join('');
    expect(text).to.include(requestId);
    expect(text).to.not.include(account.apiKey);
    expect(text).to.not.include(account.accessToken);
    expect(text).to.not.include(harness().deps.config.qrHmacKey);
    expect(text).to.not.include(harness().deps.config.urlSigningKey);
    const line = harness()
      .logs.map((l) => JSON.parse(l))
      .find((l) => l.request_id === requestId && l.msg === 'request');
    expect(line).to.include({ method: 'POST', path: '/v1/qrs', status: 201 });
  });
});
