import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/webhook-receiver.js';
import { boundTo, decrypt, encryptionKeyring, parseEncryptionKey } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { legacyCiphertext } from '../helpers/legacy-ciphertext.js';
import { loadCsdMaterial } from '../../shared/repositories/merchant-csds.js';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, callForm } from '../helpers/http.js';

const run = promisify(execFile);
const file = (path: string) => readFileSync(new URL(path, import.meta.url));
const CSD = { cer: file('../../data/sat/test-csd/EKU9003173C9.cer'), key: file('../../data/sat/test-csd/EKU9003173C9.key'), password: '12345678a' };

/** Every form a secret could be written in: as text, and as PostgreSQL's bytea hex or base64 of its bytes. */
function formsOf(name: string, secret: string | Buffer): [string, string][] {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const forms: [string, string][] = [
    [`${name} (hex)`, bytes.toString('hex')],
    [`${name} (base64)`, bytes.toString('base64')],
  ];
  if (typeof secret === 'string') forms.push([name, secret]);
  // A long binary secret: also any 48-byte window of it, as a partial copy would show.
  if (bytes.length > 96) for (let at = 0; at + 48 <= bytes.length; at += 200) forms.push([`${name} [${at}..] (hex)`, bytes.subarray(at, at + 48).toString('hex')]);
  return forms;
}

describe('secrets at rest: database dump and logs of a full flow hold no secret in clear', function () {
  this.timeout(120_000);
  let receiver: FakeWebhookReceiver;
  let stampEvents: QueueEvents;
  before(async () => {
    receiver = await startFakeWebhookReceiver();
    stampEvents = await queueEvents('stamp');
  });
  after(async () => {
    await stampEvents.close();
    await receiver.close();
  });

  it('bootstrap, token, CSD upload, API key, webhook, QR, confirm, stamp: 0 hits in pg_dump and in every log line', async () => {
    const h = harness();
    const account = await h.bootstrap();
    expect(account.clientSecret).to.be.a('string');
    const bearer = { Authorization: `Bearer ${account.accessToken}` };

    const token = await call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret } });
    expect(token.status, JSON.stringify(token.body)).to.equal(200);
    const csd = await callForm('PUT', `/v1/qrs/merchants/${account.merchantId}/invoice-mode`, account.accessToken, {
      'csdDataRequest.cerFile': { data: CSD.cer, fileName: 'csd.cer' },
      'csdDataRequest.keyFile': { data: CSD.key, fileName: 'csd.key' },
      'csdDataRequest.password': CSD.password,
    });
    expect(csd.status, JSON.stringify(csd.body)).to.be.oneOf([200, 201]);
    const regenerated = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/api-key/regenerate`, { headers: bearer });
    expect(regenerated.status).to.equal(200);
    const apiKey = regenerated.body.apiKey as string;
    const endpoint = await call('POST', '/v1/webhooks/endpoints', { headers: bearer, body: { url: receiver.url } });
    expect(endpoint.status).to.equal(201);

    const link = await newQrLink({ ...account, apiKey });
    const confirmed = await confirmReviewed(link);
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.be.oneOf([200, 201, 202]);
    await stamped(stampEvents, link.qrId);
    await receiver.accepted((hook) => hook.payload.type === 'invoice.stamped' && hook.payload.data.qr_id === link.qrId);

    const cfg = h.deps.config;
    const secrets: [string, string][] = [
      ...formsOf('bootstrap API key', account.apiKey),
      ...formsOf('regenerated API key', apiKey),
      ...formsOf('access token', account.accessToken),
      ...formsOf('issued access token', token.body.access_token as string),
      ...formsOf('client secret', account.clientSecret!),
      ...formsOf('CSD password', CSD.password),
      ...formsOf('CSD private key', CSD.key),
      ...formsOf('webhook secret', endpoint.body.secret as string),
      ...formsOf('webhook signing key', Buffer.from((endpoint.body.secret as string).replace(/^whsec_/, ''), 'base64')),
      ...formsOf('QR_HMAC_KEY', cfg.qrHmacKey),
      ...formsOf('URL_SIGNING_KEY', cfg.urlSigningKey),
      ...formsOf('PAC token', h.pac.token),
      ...formsOf('PAC password', h.pac.credentials.password),
      ['ENCRYPTION_KEY', cfg.encryptionKey],
      ...formsOf('ENCRYPTION_KEY bytes', parseEncryptionKey(cfg.encryptionKey)).filter(([, f]) => !/^0+$|^A+=*$/.test(f)),
    ];

    const { stdout: dump } = await run('pg_dump', ['--no-owner', cfg.databaseUrl], { maxBuffer: 1 << 30 });
    expect(dump.length).to.be.greaterThan(10_000);
    expect(dump).to.include(link.qrId); // the flow is in it
    // Control: binary columns are searchable this way (the certificate is public and stored in clear, as bytea hex).
    expect(dump).to.include(CSD.cer.subarray(100, 148).toString('hex'));
    const logs = h.logs.join('');
    expect(logs).to.include('/v1/auth/token'); // the request log lines are in it
    const hits = secrets.flatMap(([name, form]) => [dump.includes(form) ? `dump: ${name}` : [], logs.includes(form) ? `logs: ${name}` : []].flat());
    console.log(`      ${secrets.length} forms of secrets, ${dump.length} bytes of dump, ${h.logs.length} log lines: ${hits.length} hits`);
    expect(hits, `${secrets.length} forms of secrets searched in ${dump.length} bytes of dump and ${h.logs.length} log lines`).to.deep.equal([]);
  });

  it('binds CSD material and webhook secrets to their row: a ciphertext copied to another row does not decrypt', async () => {
    const h = harness();
    const key = encryptionKeyring(h.deps.config);
    const [a, b] = [await h.bootstrap(), await h.bootstrap()];
    expect((await loadCsdMaterial(h.deps.db, b.merchantId, key))?.password).to.equal(CSD.password);
    const rowA = await h.deps.db('merchant_csds').where({ merchant_id: a.merchantId }).first('private_key_encrypted', 'password_encrypted');
    expect(rowA.private_key_encrypted[0]).to.equal(3); // format 3: key id, bound

    // A's key in B's row, then A's key ciphertext in A's own password column: both refused.
    await h.deps.db('merchant_csds').where({ merchant_id: b.merchantId }).update({ private_key_encrypted: rowA.private_key_encrypted });
    await loadCsdMaterial(h.deps.db, b.merchantId, key).then(
      () => expect.fail('decrypted a swapped key'),
      (err: Error) => expect(err.message).to.match(/authenticate/),
    );
    expect(() => decrypt(rowA.private_key_encrypted, key, boundTo.csdPassword(a.merchantId))).to.throw();

    // Rows written before the binding (version 1, no associated data) are still read.
    await h.deps
      .db('merchant_csds')
      .where({ merchant_id: b.merchantId })
      .update({
        private_key_encrypted: legacyCiphertext(CSD.key, parseEncryptionKey(h.deps.config.encryptionKey)),
        password_encrypted: legacyCiphertext(Buffer.from(CSD.password), parseEncryptionKey(h.deps.config.encryptionKey)),
      });
    const legacy = await loadCsdMaterial(h.deps.db, b.merchantId, key);
    expect(legacy?.privateKeyDer.equals(CSD.key)).to.equal(true);

    const headers = (account: typeof a) => ({ Authorization: `Bearer ${account.accessToken}` });
    const e1 = (await call('POST', '/v1/webhooks/endpoints', { headers: headers(a), body: { url: receiver.url } })).body as { id: string; secret: string };
    const e2 = (await call('POST', '/v1/webhooks/endpoints', { headers: headers(b), body: { url: receiver.url } })).body as { id: string };
    const sealed = (await h.deps.db('webhook_endpoints').where({ id: e1.id }).first('secret_encrypted')).secret_encrypted as Buffer;
    expect(decrypt(sealed, key, boundTo.webhookSecret(e1.id)).toString()).to.equal(e1.secret);
    expect(() => decrypt(sealed, key, boundTo.webhookSecret(e2.id))).to.throw();
    expect(() => decrypt(sealed, key)).to.throw(/associated data/);
  });
});
