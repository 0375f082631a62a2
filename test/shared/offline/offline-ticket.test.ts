import { expect } from 'chai';
import { offlineTicket as clientOfflineTicket } from '../../../clients/typescript/src/offline-ticket.js';
import { SHORT_CODE_ALPHABET } from '../../../shared/domain/qr-code/short-code.js';
import { newOfflineKey, offlineCredential, parseOfflineCredential } from '../../../shared/offline/offline-key.js';
import {
  offlineAmountText,
  offlineShortCode,
  offlineTicketLink,
  offlineTicketSigned,
  readOfflineTicket,
  signOfflineTicket,
  type OfflineTicketParams,
} from '../../../shared/offline/offline-ticket.js';
import { checkOfflineTicket, type OfflineKeyState } from '../../../shared/offline/offline-ticket-check.js';

const BASE = 'https://factura.example.test';
const params = (link: string) => Object.fromEntries(new URL(link).searchParams) as Record<string, string>;

describe('offline tickets: the link a point of sale signs with no network (issue #33)', () => {
  const key = newOfflineKey();
  const soldAt = new Date('2026-11-27T13:05:09Z');
  const ticket = { keyId: key.keyId, saleId: 'T-0042/caja 3', amount: '116.5', soldAt };

  it('round-trips: signed, linked, read back and verified; the link stays short enough for a thermal printer', () => {
    const signed = signOfflineTicket(ticket, key.secret);
    const link = offlineTicketLink(BASE, signed);
    expect(link.length).to.be.below(130);
    const read = readOfflineTicket(params(link));
    expect(read.ok).to.equal(true);
    if (!read.ok) return;
    expect(read.ticket).to.deep.equal(ticket);
    expect(offlineTicketSigned(read.params, key.secret)).to.equal(true);
    expect(offlineTicketSigned(read.params, newOfflineKey().secret), 'another key').to.equal(false);
  });

  it('any change to the store, sale, amount, moment or MAC breaks the signature', () => {
    const signed = signOfflineTicket(ticket, key.secret);
    const changes: Partial<OfflineTicketParams>[] = [
      { k: newOfflineKey().keyId },
      { s: 'T-0043/caja 3' },
      { a: '116.6' },
      { w: (parseInt(signed.w, 36) - 60).toString(36) },
      { m: `${signed.m.slice(0, 21)}B` },
    ];
    for (const change of changes) {
      const read = readOfflineTicket({ ...signed, ...change });
      expect(read.ok && offlineTicketSigned(read.params, key.secret), JSON.stringify(change)).to.equal(false);
    }
  });

  it('refuses malformed parameters without throwing', () => {
    const signed = signOfflineTicket(ticket, key.secret);
    const bad: Record<string, unknown>[] = [
      { ...signed, v: '1' },
      { ...signed, k: 'short' },
      { ...signed, a: '116.50' }, // not the one canonical spelling
      { ...signed, a: '-1' },
      { ...signed, a: '0' },
      { ...signed, a: '1e3' },
      { ...signed, w: 'ZZ' },
      { ...signed, s: '' },
      { ...signed, s: 'x'.repeat(101) },
      { ...signed, m: ['a', 'b'] },
      {},
    ];
    for (const p of bad) expect(readOfflineTicket(p).ok, JSON.stringify(p)).to.equal(false);
  });

  it('refuses a sale id no CFDI can hold (a scanner\'s GS, "|"), naming the character; the typed client will not sign one (issue #38)', () => {
    for (const [saleId, name] of [
      ['0107501\u001D10', 'U+001D (INFORMATION SEPARATOR THREE / GS)'],
      ['A|B', '"|"'],
      ['A\u0001', 'U+0001 (START OF HEADING / SOH)'],
    ] as const) {
      const read = readOfflineTicket(signOfflineTicket({ ...ticket, saleId }, key.secret));
      expect(read.ok, saleId).to.equal(false);
      expect(read, saleId).to.include({ reason: 'sale_id_unwritable' });
      expect((read as { problem: string }).problem, saleId).to.contain(name);
      expect(() => clientOfflineTicket(`afok_${ticket.keyId}.${key.secret.toString('base64url')}`, 'https://f.test', { saleId, amount: '116.5' }), saleId).to.throw(
        RangeError,
        /saleId must not contain U\+/,
      );
    }
    // A tab is whitespace there, as in sale_id: still signed and read.
    expect(readOfflineTicket(signOfflineTicket({ ...ticket, saleId: 'A\tB' }, key.secret)).ok).to.equal(true);
  });

  it('spells amounts one way: trailing zeros and leading zeros dropped, more than 6 decimals or zero refused', () => {
    expect(offlineAmountText('116.50')).to.equal('116.5');
    expect(offlineAmountText('0116.000000')).to.equal('116');
    expect(offlineAmountText('0.000001')).to.equal('0.000001');
    expect(offlineAmountText('0.0000001')).to.equal(undefined);
    expect(offlineAmountText('0.00')).to.equal(undefined);
  });

  it('keys travel as one string, afok_<id>.<secret>, and parse back', () => {
    const text = offlineCredential(key);
    expect(text).to.match(/^afok_[A-Za-z0-9_-]{10}\.[A-Za-z0-9_-]{43}$/);
    expect(parseOfflineCredential(text)).to.deep.equal(key);
    expect(parseOfflineCredential(`${text}x`)).to.equal(undefined);
  });

  it("the typed client's offlineTicket signs exactly what the service checks, and prints the service's short code", () => {
    const made = clientOfflineTicket(offlineCredential(key), `${BASE}/`, { saleId: ticket.saleId, amount: 116.5, soldAt });
    expect(made.link).to.equal(offlineTicketLink(BASE, signOfflineTicket(ticket, key.secret)));
    const read = readOfflineTicket(params(made.link));
    expect(read.ok && offlineTicketSigned(read.params, key.secret)).to.equal(true);
    if (!read.ok) return;
    const code = offlineShortCode(read.params, key.secret);
    expect(code).to.match(new RegExp(`^[${SHORT_CODE_ALPHABET}]{12}$`));
    expect(made.shortCode).to.equal(`${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`);
    expect(clientOfflineTicket(offlineCredential(key), BASE, { saleId: ticket.saleId, amount: '116.500', soldAt }).link).to.equal(made.link);
    expect(() => clientOfflineTicket('afok_nope', BASE, { saleId: 'x', amount: 1 })).to.throw(RangeError);
    expect(() => clientOfflineTicket(offlineCredential(key), BASE, { saleId: 'x', amount: 0 })).to.throw(RangeError);
  });

  describe('checkOfflineTicket', () => {
    const signed = signOfflineTicket(ticket, key.secret);
    const read = readOfflineTicket(signed);
    if (!read.ok) throw new Error('unreadable');
    const state = (over: Partial<OfflineKeyState> = {}): OfflineKeyState => ({
      id: key.keyId,
      merchantId: 'mer_1',
      secret: key.secret,
      windowHours: 72,
      currency: 'MXN',
      revokedAt: null,
      oldTicketsUntil: null,
      ...over,
    });
    const claim = { merchantId: 'mer_1', saleId: ticket.saleId, amount: '116.500000', currency: 'MXN' };
    const at = (hoursAfterSale: number) => new Date(soldAt.getTime() + hoursAfterSale * 3_600_000);
    const refusal = (over: Partial<OfflineKeyState>, now: Date, c: typeof claim | undefined = claim) => {
      const result = checkOfflineTicket(read.ticket, read.params, over === undefined ? undefined : state(over), c, now);
      return result.ok ? 'ok' : result.refusal;
    };

    it('accepts the ticket within its window for its own sale and total', () => {
      expect(refusal({}, at(71.9))).to.equal('ok');
    });
    it('refuses another store, a forged MAC, a total, currency or sale id that differs', () => {
      expect(refusal({ merchantId: 'mer_2' }, at(1))).to.equal('invalid');
      expect(refusal({ secret: newOfflineKey().secret }, at(1))).to.equal('invalid');
      expect(checkOfflineTicket(read.ticket, read.params, undefined, claim, at(1))).to.deep.equal({ ok: false, refusal: 'invalid' });
      expect(refusal({}, at(1), { ...claim, amount: '116.51' })).to.equal('amount_differs');
      expect(refusal({}, at(1), { ...claim, saleId: 'T-0042' })).to.equal('sale_id_differs');
      expect(refusal({}, at(1), { ...claim, currency: 'USD' })).to.equal('currency_differs');
      expect(refusal({ currency: 'USD' }, at(1), { ...claim, currency: 'USD' })).to.equal('ok');
    });
    it('refuses a ticket past its window, or sold more than 5 minutes in the future', () => {
      expect(refusal({}, at(72.01))).to.equal('window_passed');
      expect(refusal({}, at(-0.1))).to.equal('sold_in_future');
      expect(refusal({}, at(-0.05))).to.equal('ok');
    });
    it('after a revocation: tickets sold later are refused at once, earlier ones until the grace ends', () => {
      const revoked = { revokedAt: at(2), oldTicketsUntil: at(26) };
      expect(refusal(revoked, at(25))).to.equal('ok');
      expect(refusal(revoked, at(26.1))).to.equal('key_revoked');
      expect(refusal({ revokedAt: at(-1), oldTicketsUntil: at(100) }, at(1)), 'sold after the revocation').to.equal('key_revoked');
    });
  });
});
