import { expect } from 'chai';
import { canonicalJson, requestFingerprint } from '../../../../shared/platform/idempotency/request-fingerprint.js';

describe('request fingerprint', () => {
  it('ignores key order at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).to.equal('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestFingerprint({ a: 1, b: 2 }, { tz: 'UTC' })).to.equal(requestFingerprint({ b: 2, a: 1 }, { tz: 'UTC' }));
  });

  it('changes with any value, array order or header', () => {
    const base = requestFingerprint({ a: [1, 2] }, { tz: 'UTC' });
    expect(requestFingerprint({ a: [2, 1] }, { tz: 'UTC' })).to.not.equal(base);
    expect(requestFingerprint({ a: [1, 2.5] }, { tz: 'UTC' })).to.not.equal(base);
    expect(requestFingerprint({ a: [1, 2] }, { tz: 'America/Mexico_City' })).to.not.equal(base);
  });
});
