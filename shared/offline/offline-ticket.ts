import { createHmac, timingSafeEqual } from 'node:crypto';
import { SHORT_CODE_ALPHABET } from '../domain/qr-code/short-code.js';
import { CFDI_TEXT, cfdiTextProblem } from '../sat/cfdi-text-rules.js';

/**
 * A ticket the point of sale makes while it is offline (issue #33): the deep link of format version 2,
 * `{base}/q?v=2&k=<key id>&w=<moment of sale>&a=<amount>&s=<sale id>&m=<mac>`, signed by the store's
 * offline key so the service can trust it later. Everything the service must check when the sale catches
 * up is in the link: which store (the key), which sale (the POS's sale_id), how much and when.
 * - `k`: the offline key's public id (10 base64url characters);
 * - `w`: the moment of sale, Unix seconds in base 36 (7 characters until 2059);
 * - `a`: the total in its one canonical spelling (no sign, no exponent, no trailing zeros, ≤ 6 decimals);
 * - `s`: the POS's sale id, percent-encoded in the link; it becomes the sale's sale_id, so it follows that
 *   field's rule (the ticket's NoIdentificacion in a global invoice: no control character, no "|");
 * - `m`: HMAC-SHA256(secret, "v2\nk\nw\na\ns") truncated to 128 bits. `s` is last: the fields before it
 *   cannot hold a newline, so no two tickets sign the same text.
 * The printed short code is derived from the same key and text (a second HMAC), so the POS prints it with
 * no network; the service learns it when the sale catches up.
 * The typed client (clients/typescript/src/offline-ticket.ts) signs the same way; a test holds them equal.
 */
export const OFFLINE_LINK_VERSION = '2';
export const OFFLINE_KEY_ID = /^[A-Za-z0-9_-]{10}$/;
/** The printed code of an offline ticket: 12 symbols, so it is never taken for a 10-symbol online code. */
export const OFFLINE_SHORT_CODE_LENGTH = 12;
const MAC_BYTES = 16;
const AMOUNT = /^(0|[1-9][0-9]{0,14})(\.[0-9]{0,5}[1-9])?$/;
const MOMENT = /^[0-9a-z]{1,8}$/;
const SALE_ID_MAX = 100;

export interface OfflineTicket {
  keyId: string;
  saleId: string;
  /** Canonical decimal text (offlineAmountText). */
  amount: string;
  soldAt: Date;
}

export interface OfflineTicketParams {
  v: string;
  k: string;
  w: string;
  a: string;
  s: string;
  m: string;
}

export type OfflineTicketRead =
  | { ok: true; ticket: OfflineTicket; params: OfflineTicketParams }
  | { ok: false; reason: 'malformed' }
  /** `s` could never be a sale's sale_id: `problem` says why ("must not contain the control character U+001D …"). */
  | { ok: false; reason: 'sale_id_unwritable'; problem: string };

/** The one spelling of an amount in a ticket ("116.50" → "116.5"); undefined when it is not a positive decimal of ≤ 6 places. */
export function offlineAmountText(amount: string): string | undefined {
  const m = /^([0-9]{1,15})(?:\.([0-9]{1,6}))?$/.exec(amount);
  if (!m) return undefined;
  const whole = m[1]!.replace(/^0+(?=[0-9])/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return text === '0' ? undefined : text;
}

function signedText(p: Pick<OfflineTicketParams, 'k' | 'w' | 'a' | 's'>): string {
  return ['v2', p.k, p.w, p.a, p.s].join('\n');
}

function mac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest().subarray(0, MAC_BYTES).toString('base64url');
}

export function signOfflineTicket(ticket: OfflineTicket, secret: Buffer): OfflineTicketParams {
  const unsigned = { k: ticket.keyId, w: Math.floor(ticket.soldAt.getTime() / 1000).toString(36), a: ticket.amount, s: ticket.saleId };
  return { v: OFFLINE_LINK_VERSION, ...unsigned, m: mac(secret, signedText(unsigned)) };
}

export function offlineTicketLink(publicBaseUrl: string, p: OfflineTicketParams): string {
  return `${publicBaseUrl}/q?v=${p.v}&k=${p.k}&w=${p.w}&a=${p.a}&s=${encodeURIComponent(p.s)}&m=${p.m}`;
}

/** The parameters of a version-2 link as they arrive (already percent-decoded); never throws on hostile input. */
export function readOfflineTicket(params: Partial<Record<keyof OfflineTicketParams, unknown>>): OfflineTicketRead {
  const { v, k, w, a, s, m } = params;
  if (v !== OFFLINE_LINK_VERSION) return { ok: false, reason: 'malformed' };
  if (typeof k !== 'string' || !OFFLINE_KEY_ID.test(k)) return { ok: false, reason: 'malformed' };
  if (typeof w !== 'string' || !MOMENT.test(w)) return { ok: false, reason: 'malformed' };
  if (typeof a !== 'string' || !AMOUNT.test(a) || a === '0') return { ok: false, reason: 'malformed' };
  if (typeof s !== 'string' || s.length === 0 || s.length > SALE_ID_MAX) return { ok: false, reason: 'malformed' };
  if (typeof m !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(m)) return { ok: false, reason: 'malformed' };
  const problem = cfdiTextProblem(CFDI_TEXT.saleId, s);
  if (problem !== undefined) return { ok: false, reason: 'sale_id_unwritable', problem };
  const seconds = parseInt(w, 36);
  if (!Number.isSafeInteger(seconds)) return { ok: false, reason: 'malformed' };
  return { ok: true, ticket: { keyId: k, saleId: s, amount: a, soldAt: new Date(seconds * 1000) }, params: { v, k, w, a, s, m } };
}

/** True when `secret` signed these parameters; the text of the MAC is compared (its one canonical spelling), in constant time. */
export function offlineTicketSigned(params: OfflineTicketParams, secret: Buffer): boolean {
  const expected = Buffer.from(mac(secret, signedText(params)), 'ascii');
  const presented = Buffer.from(params.m, 'ascii');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The code printed under the QR: 12 symbols of the short-code alphabet, from HMAC(secret, "code\n" + text). */
export function offlineShortCode(params: OfflineTicketParams, secret: Buffer): string {
  const digest = createHmac('sha256', secret)
    .update(`code\n${signedText(params)}`)
    .digest();
  // Base-31 digits of the 256-bit digest: 31^12 is far below 2^256, so every code is equally likely to
  // within 2^-190.
  let n = BigInt(`0x${digest.toString('hex')}`);
  const base = BigInt(SHORT_CODE_ALPHABET.length);
  let code = '';
  for (let i = 0; i < OFFLINE_SHORT_CODE_LENGTH; i += 1) {
    code += SHORT_CODE_ALPHABET[Number(n % base)];
    n /= base;
  }
  return code;
}
