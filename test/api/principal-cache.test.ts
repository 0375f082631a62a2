import { expect } from 'chai';
import { PrincipalCache } from '../../api/access/principal-cache.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';

const principal = (merchantId: string): ApiKeyPrincipal => ({
  keyId: `key-${merchantId}`,
  mode: 'development',
  merchantId,
  accountId: 'acc',
  externalMerchantId: 'store-1',
  merchantName: 'Tienda',
  merchantStatus: 'ACTIVE',
  issuerRfc: 'EKU9003173C9',
  issuerName: 'ESCUELA KEMPER URGATE',
  globalPeriodicity: '04',
  csdValidTo: null,
});

describe('PrincipalCache (api/access/principal-cache.ts)', () => {
  it('answers an entry only under the generation it was stored with', () => {
    const cache = new PrincipalCache();
    cache.set('h1', 'g1', principal('m1'));
    expect(cache.get('h1', 'g1')?.merchantId).to.equal('m1');
    expect(cache.get('h1', 'g2')).to.equal(undefined);
    // A stale entry is dropped, not kept for a generation that might come back.
    expect(cache.get('h1', 'g1')).to.equal(undefined);
  });

  it('reads again after its max age, whatever the generation', () => {
    let now = 1_000;
    const cache = new PrincipalCache({ maxAgeMs: 60_000, now: () => now });
    cache.set('h1', 'g1', principal('m1'));
    now += 60_000;
    expect(cache.get('h1', 'g1')?.merchantId).to.equal('m1');
    now += 1;
    expect(cache.get('h1', 'g1')).to.equal(undefined);
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new PrincipalCache({ maxEntries: 2 });
    cache.set('a', 'g', principal('a'));
    cache.set('b', 'g', principal('b'));
    expect(cache.get('a', 'g')?.merchantId).to.equal('a');
    cache.set('c', 'g', principal('c'));
    expect(cache.size).to.equal(2);
    expect(cache.get('b', 'g')).to.equal(undefined);
    expect(cache.get('a', 'g')?.merchantId).to.equal('a');
    expect(cache.get('c', 'g')?.merchantId).to.equal('c');
  });
});
