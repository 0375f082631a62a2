import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../../shared/platform/config.js';
import { decrypt, encrypt, encryptionKeyring, isCurrent, parseEncryptionKey, sealingKeyId, type Keyring } from '../../../../shared/platform/crypto/encrypt-at-rest.js';
import { legacyCiphertext } from '../../../helpers/legacy-ciphertext.js';
import { issueSecret, lookupPrefix, secretMatches } from '../../../../shared/platform/crypto/secret-token.js';

describe('secret tokens', () => {
  it('are random, carry a non-secret prefix and verify only themselves', () => {
    const a = issueSecret('sk_test');
    const b = issueSecret('sk_test');
    expect(a.secret).to.match(/^sk_test_[A-Za-z0-9_-]{32}$/);
    expect(a.secret).to.not.equal(b.secret);
    expect(lookupPrefix(a.secret, 'sk_test')).to.equal(a.prefix);
    expect(a.prefix).to.have.length('sk_test_'.length + 10);
    expect(secretMatches(a.secret, a.hash)).to.equal(true);
    expect(secretMatches(b.secret, a.hash)).to.equal(false);
    expect(secretMatches('', a.hash)).to.equal(false);
    expect(lookupPrefix('sk_test_short', 'sk_test')).to.equal(undefined);
    expect(a.hash.toString('hex')).to.not.include(Buffer.from(a.secret).toString('hex'));
  });
});

describe('encryption at rest', () => {
  const hex = () => randomBytes(32).toString('hex');
  const ring = (currentId: number, keys: Record<number, string>): Keyring =>
    encryptionKeyring({
      encryptionKey: keys[currentId]!,
      encryptionKeyId: currentId,
      encryptionPreviousKeys: Object.entries(keys)
        .filter(([id]) => Number(id) !== currentId)
        .map(([id, key]) => ({ id: Number(id), key })),
    });
  const [k1, k2] = [hex(), hex()];
  const one = ring(1, { 1: k1 });

  it('round-trips under the current key id, bound to its row, and never stores the plain text', () => {
    const plain = Buffer.from('12345678a');
    const sealed = encrypt(plain, one, 'csd-password:m1');
    expect(sealed.includes(plain)).to.equal(false);
    expect([sealed[0], sealingKeyId(sealed)]).to.deep.equal([3, 1]);
    expect(decrypt(sealed, one, 'csd-password:m1').toString()).to.equal('12345678a');
    expect(encrypt(plain, one, 'csd-password:m1').equals(sealed)).to.equal(false);
    expect(() => decrypt(sealed, one, 'csd-password:m2')).to.throw();
    expect(() => decrypt(sealed, one)).to.throw(/associated data/);
  });

  it('refuses a tampered payload, another key, an unknown key id, and a key that is not 32 bytes', () => {
    const sealed = encrypt(Buffer.from('secret'), one, 'x');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => decrypt(tampered, one, 'x')).to.throw();
    expect(() => decrypt(sealed, ring(1, { 1: randomBytes(32).toString('base64') }), 'x')).to.throw();
    const err = (() => {
      try {
        decrypt(sealed, ring(2, { 2: k2 }), 'x');
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(err).to.equal('encryption key id 1 is not configured (ENCRYPTION_KEY_ID, ENCRYPTION_PREVIOUS_KEYS)');
    expect(err).to.not.include(k1);
    expect(() => parseEncryptionKey('too-short')).to.throw('32 bytes');
  });

  it('after a rotation writes under the new key id and still reads every older format with the previous keys', () => {
    const rotated = ring(2, { 2: k2, 1: k1 });
    const old = encrypt(Buffer.from('v3 under key 1'), one, 'a');
    const v2 = legacyCiphertext(Buffer.from('format 2'), parseEncryptionKey(k1), 'a');
    const v1 = legacyCiphertext(Buffer.from('format 1'), parseEncryptionKey(k1));
    expect([old, v2, v1].map((s) => [sealingKeyId(s), isCurrent(s, rotated)])).to.deep.equal([
      [1, false],
      [1, false],
      [1, false],
    ]);
    expect([decrypt(old, rotated, 'a'), decrypt(v2, rotated, 'a'), decrypt(v1, rotated)].map(String)).to.deep.equal(['v3 under key 1', 'format 2', 'format 1']);
    const fresh = encrypt(Buffer.from('new'), rotated, 'a');
    expect([sealingKeyId(fresh), isCurrent(fresh, rotated)]).to.deep.equal([2, true]);
    // The old key retired: what it sealed no longer opens; what the new one sealed does.
    const retired = ring(2, { 2: k2 });
    expect(() => decrypt(old, retired, 'a')).to.throw(/key id 1/);
    expect(decrypt(fresh, retired, 'a').toString()).to.equal('new');
  });

  it('reads ENCRYPTION_KEY_ID and ENCRYPTION_PREVIOUS_KEYS, refusing bad ids, bad keys and an id given twice', () => {
    const cfg = loadConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: k2, ENCRYPTION_KEY_ID: '2', ENCRYPTION_PREVIOUS_KEYS: `1:${k1}` });
    expect([cfg.encryptionKeyId, cfg.encryptionPreviousKeys]).to.deep.equal([2, [{ id: 1, key: k1 }]]);
    expect(loadConfig({ NODE_ENV: 'development' }).encryptionKeyId).to.equal(1);
    const refusals = [
      [{ ENCRYPTION_KEY_ID: '0' }, /ENCRYPTION_KEY_ID must be a key id from 1 to 255/],
      [{ ENCRYPTION_KEY_ID: '256' }, /ENCRYPTION_KEY_ID/],
      [{ ENCRYPTION_PREVIOUS_KEYS: k1 }, /entry 1 must be id:key/],
      [{ ENCRYPTION_PREVIOUS_KEYS: '2:short' }, /key id 2 must be 32 bytes/],
      [{ ENCRYPTION_PREVIOUS_KEYS: `1:${k1}` }, /key id 1 is given twice/],
    ] as const;
    for (const [env, message] of refusals) {
      expect(() => loadConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: k2, ...env }), JSON.stringify(env)).to.throw(message);
      try {
        loadConfig({ NODE_ENV: 'development', ENCRYPTION_KEY: k2, ...env });
      } catch (e) {
        expect((e as Error).message).to.not.include(k1);
      }
    }
  });

  it('in production, refuses the public development keys among the previous keys too', () => {
    const production = {
      NODE_ENV: 'production',
      QR_HMAC_KEY: 'q'.repeat(32),
      URL_SIGNING_KEY: 'u'.repeat(32),
      ENCRYPTION_KEY: k2,
      ENCRYPTION_KEY_ID: '2',
      CSF_BASE_URL: 'https://csf.example.com',
      PAC_BASE_URL: 'https://pac.example.com',
      PAC_TOKEN: 't',
      SMTP_URL: 'smtp://mail.example.com',
    };
    expect(loadConfig({ ...production, ENCRYPTION_PREVIOUS_KEYS: `1:${k1}`, QR_HMAC_PREVIOUS_KEYS: 'old key' }).encryptionPreviousKeys).to.have.length(1);
    // The all-zero development key, in either spelling.
    for (const dev of ['0'.repeat(64), Buffer.alloc(32).toString('base64')]) {
      expect(() => loadConfig({ ...production, ENCRYPTION_PREVIOUS_KEYS: `1:${dev}` }), dev).to.throw('ENCRYPTION_PREVIOUS_KEYS key id 1 is the development key');
    }
    const devQrKey = loadConfig({ NODE_ENV: 'development' }).qrHmacKey;
    expect(() => loadConfig({ ...production, QR_HMAC_PREVIOUS_KEYS: `old key,${devQrKey}` })).to.throw('QR_HMAC_PREVIOUS_KEYS must not hold the development key');
  });

  it('in production, refuses the development ENCRYPTION_KEY in any spelling and signing keys shorter than 32 bytes (issue #39)', () => {
    const production = {
      NODE_ENV: 'production',
      QR_HMAC_KEY: 'q'.repeat(32),
      URL_SIGNING_KEY: 'u'.repeat(32),
      ENCRYPTION_KEY: k2,
      CSF_BASE_URL: 'https://csf.example.com',
      PAC_BASE_URL: 'https://pac.example.com',
      PAC_TOKEN: 't',
      SMTP_URL: 'smtp://mail.example.com',
    };
    expect(loadConfig(production).qrHmacKey).to.equal('q'.repeat(32));
    for (const dev of ['0'.repeat(64), Buffer.alloc(32).toString('base64'), Buffer.alloc(32).toString('base64url')]) {
      expect(() => loadConfig({ ...production, ENCRYPTION_KEY: dev }), dev).to.throw('config: encryptionKey must be set in production');
    }
    for (const short of ['x', 'q'.repeat(31), 'ñ'.repeat(15)]) {
      expect(() => loadConfig({ ...production, QR_HMAC_KEY: short }), short).to.throw('config: qrHmacKey must be at least 32 bytes in production');
      expect(() => loadConfig({ ...production, URL_SIGNING_KEY: short }), short).to.throw('config: urlSigningKey must be at least 32 bytes in production');
    }
    // Development and tests keep any key: the short ones the suite uses stay valid there.
    expect(loadConfig({ NODE_ENV: 'test', QR_HMAC_KEY: 'x' }).qrHmacKey).to.equal('x');
  });
});
