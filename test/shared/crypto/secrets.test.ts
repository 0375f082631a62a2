import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { decrypt, encrypt, parseEncryptionKey } from '../../../shared/crypto/encrypt-at-rest.js';
import { issueSecret, lookupPrefix, secretMatches } from '../../../shared/crypto/secret-token.js';

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
  const key = parseEncryptionKey(randomBytes(32).toString('hex'));

  it('round-trips and never stores the plain text', () => {
    const plain = Buffer.from('12345678a');
    const sealed = encrypt(plain, key);
    expect(sealed.includes(plain)).to.equal(false);
    expect(decrypt(sealed, key).toString()).to.equal('12345678a');
    expect(encrypt(plain, key).equals(sealed)).to.equal(false);
  });

  it('refuses a tampered payload or another key', () => {
    const sealed = encrypt(Buffer.from('secret'), key);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => decrypt(tampered, key)).to.throw();
    expect(() => decrypt(sealed, parseEncryptionKey(randomBytes(32).toString('base64')))).to.throw();
    expect(() => parseEncryptionKey('too-short')).to.throw('32 bytes');
  });
});
