import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { linkQuery, newQrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';

/** Runs `task` for 0..count-1, `width` at a time; returns the statuses it answered. */
async function statuses(count: number, width: number, task: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const status = await task(next++);
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }
    }),
  );
  return seen;
}

const fetchStatus = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${harness().baseUrl}${path}`, { headers }).then(async (res) => {
    await res.body?.cancel();
    return res.status;
  });

/** A key or token as an attacker would try it: garbage, the right shape with the wrong secret, a real one altered. */
function forged(real: string, i: number): string {
  switch (i % 6) {
    case 0:
      return randomBytes(24).toString('base64url');
    case 1:
      return `${real.slice(0, real.indexOf('_', 3) + 1)}${randomBytes(24).toString('base64url')}`;
    case 2:
      return real.slice(0, -1 - (i % 7));
    case 3:
      return `${real.slice(0, 12)}${real[12] === 'A' ? 'B' : 'A'}${real.slice(13)}`;
    case 4:
      return `${real}${'x'.repeat(1 + (i % 4000))}`;
    default:
      return `${real.slice(0, 8)}ñ\u0000${real.slice(10)}`.replaceAll('\u0000', '');
  }
}

describe('hostile volume: forged credentials and tampered links by the thousand', function () {
  this.timeout(300_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('10,000 forged API keys and bearer tokens: all 401, no 5xx', async () => {
    const seen = await statuses(10_000, 50, (i) =>
      i % 2 === 0
        ? fetchStatus('/v1/qrs/tra_x', { 'X-API-Key': forged(account.apiKey, i) })
        : fetchStatus('/v1/qrs/merchants', { Authorization: `Bearer ${forged(account.accessToken, i)}` }),
    );
    expect(Object.fromEntries(seen)).to.deep.equal({ 401: 10_000 });
  });

  it('10,000 tampered QR links, image URLs and invoice links: all 4xx, no 5xx', async () => {
    const link = await newQrLink(account);
    const qr = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body as { qr_url: string };
    const image = new URL(qr.qr_url);
    const flip = (s: string, at: number) => `${s.slice(0, at)}${s[at] === 'A' ? 'B' : 'A'}${s.slice(at + 1)}`;
    const seen = await statuses(10_000, 50, (i) => {
      switch (i % 4) {
        case 0:
          return fetchStatus(`/v1/public/qrs/resolve?${linkQuery({ ...link, m: flip(link.m, i % 22) })}`);
        case 1:
          return fetchStatus(`/v1/public/qrs/resolve?${linkQuery({ ...link, t: flip(link.t, i % 22) })}`);
        case 2:
          return fetchStatus(`${image.pathname}?exp=${image.searchParams.get('exp')}&sig=${flip(image.searchParams.get('sig')!, i % 22)}`);
        default:
          return fetchStatus(`/v1/public/invoices/${randomUUID().toUpperCase()}.pdf?sig=${randomBytes(16).toString('base64url')}`);
      }
    });
    expect(
      [...seen.keys()].every((status) => status >= 400 && status < 500),
      JSON.stringify(Object.fromEntries(seen)),
    ).to.equal(true);
  });

  it('1,000 concurrent POST /v1/qrs, 50 keys × 20 copies: 50 transactions, one per key, no 5xx', async () => {
    const keys = Array.from({ length: 50 }, () => randomUUID());
    const bodies = keys.map(() => qrBody(account.storeUid));
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        call('POST', '/v1/qrs', {
          headers: qrHeaders(account, keys[i % 50]),
          body: bodies[i % 50],
        }),
      ),
    );
    expect(answers.filter((a) => a.status !== 201).map((a) => `${a.status} ${JSON.stringify(a.body).slice(0, 120)}`)).to.deep.equal([]);
    const idsByKey = new Map<string, Set<string>>();
    answers.forEach((a, i) => idsByKey.set(keys[i % 50]!, (idsByKey.get(keys[i % 50]!) ?? new Set()).add(a.body.qr_id as string)));
    expect([...idsByKey.values()].every((ids) => ids.size === 1)).to.equal(true);
    const rows = await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).whereIn('idempotency_key', keys).count({ n: '*' }).first();
    expect(Number(rows?.n)).to.equal(50);

    // 1,000 replays with a changed body: all 409 idempotency_key_reused, nothing new written.
    const changed = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        call('POST', '/v1/qrs', {
          headers: qrHeaders(account, keys[i % 50]),
          body: { ...bodies[i % 50]!, sale_id: `changed-${i}` },
        }),
      ),
    );
    expect(changed.every((a) => a.status === 409 && a.body.error.code === 'idempotency_key_reused')).to.equal(true);
    const after = await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).count({ n: '*' }).first();
    expect(Number(after?.n)).to.equal(51);
  });
});
