import { expect } from 'chai';
import { checkEndpointUrl } from '../../../shared/webhooks/check-endpoint-url.js';
import { newWebhookSecret, verifyWebhook, webhookHeaders, webhookSignature } from '../../../shared/webhooks/sign-webhook.js';

describe('webhook signatures (Standard Webhooks) and endpoint URLs', () => {
  it('signs exactly as the Standard Webhooks reference example', () => {
    expect(webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).to.equal(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('verifies its own headers, and refuses another body, another secret, an old timestamp and garbage', () => {
    const secret = newWebhookSecret();
    const now = new Date('2026-11-23T12:00:00Z');
    const body = '{"id":"evt_1","type":"qr.scanned"}';
    const h = webhookHeaders(secret, 'evt_1', body, now);
    const given = { id: h['webhook-id']!, timestamp: h['webhook-timestamp']!, signature: h['webhook-signature']! };
    expect(verifyWebhook(secret, given, body, now)).to.equal(true);
    expect(verifyWebhook(secret, { ...given, signature: `v1,bm90IGl0 ${given.signature}` }, body, now), 'one of several signatures').to.equal(true);
    expect(verifyWebhook(secret, given, body.replace('1', '2'), now)).to.equal(false);
    expect(verifyWebhook(newWebhookSecret(), given, body, now)).to.equal(false);
    expect(verifyWebhook(secret, given, body, new Date(now.getTime() + 301_000))).to.equal(false);
    expect(verifyWebhook(secret, { ...given, signature: 'v1,short' }, body, now)).to.equal(false);
    expect(verifyWebhook(secret, { ...given, timestamp: 'soon' }, body, now)).to.equal(false);
  });

  it('takes https URLs in production, never credentials or private, loopback and link-local addresses', () => {
    expect(checkEndpointUrl('https://erp.example.com/hooks?x=1', true)).to.equal(undefined);
    for (const url of [
      'http://erp.example.com/',
      'https://localhost/x',
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://192.168.0.5/',
      'https://172.20.0.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/',
      'https://[fd00::1]/',
      'https://u:p@erp.example.com/',
      'not a url',
    ]) {
      expect(checkEndpointUrl(url, true), url).to.have.property('field', 'url');
    }
    expect(checkEndpointUrl('http://127.0.0.1:8080/hooks', false)).to.equal(undefined);
    expect(checkEndpointUrl('ftp://example.com/', false)).to.have.property('code', 'invalid_format');
  });
});
