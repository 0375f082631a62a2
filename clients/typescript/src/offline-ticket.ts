import { createHmac } from 'node:crypto';

/**
 * A ticket the point of sale makes with no network (issue #33 of the service): the link to print as the
 * QR and the short code to print under it, signed with the store's offline key (`afok_…`, from
 * POST /v1/qrs/merchants/{merchantId}/offline-keys). When the POS is back, it posts the sale as usual
 * with `offline_ticket: ticket.link`, the same `sale_id` and the same `amount`.
 * The service checks the same bytes (shared/offline/offline-ticket.ts there; a test holds the two equal).
 */
export interface OfflineSale {
  /** The POS's own sale id: the `sale_id` it will post when it is back (1–100 characters). */
  saleId: string;
  /** The total, as a decimal string ("116.50") or a number of at most 6 decimals. */
  amount: string | number;
  /** The moment of sale; now when not given. */
  soldAt?: Date;
}

export interface OfflineTicket {
  /** The deep link to print as the QR. */
  link: string;
  /** The code to print under the QR, as people read it (`7KQ4-MXR2-PAB3`). */
  shortCode: string;
  saleId: string;
  /** The total as signed: the one spelling of the amount ("116.5"). */
  amount: string;
  soldAt: Date;
}

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const CREDENTIAL = /^afok_([A-Za-z0-9_-]{10})\.([A-Za-z0-9_-]{43})$/;

/**
 * The first character of a sale id the service would refuse (it becomes the ticket's NoIdentificacion in a
 * CFDI): a control character XML cannot hold, such as the GS (U+001D) a barcode scanner sends, a non-character
 * or lone surrogate, or "|". A ticket signed with it could never be invoiced.
 */
function refusedSaleIdChar(saleId: string): string | undefined {
  for (const c of saleId) {
    const cp = c.codePointAt(0)!;
    const xml = cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
    if (!xml || c === '|') return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

function amountText(amount: string | number): string {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? amount.toFixed(6) : '') : amount;
  const m = /^([0-9]{1,15})(?:\.([0-9]{1,6}))?$/.exec(text);
  if (!m) throw new RangeError(`amount ${String(amount)} is not a decimal of at most 6 places`);
  const whole = m[1]!.replace(/^0+(?=[0-9])/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  const canonical = fraction ? `${whole}.${fraction}` : whole;
  if (canonical === '0') throw new RangeError('amount must be positive');
  return canonical;
}

/** Signs a ticket offline: no network, no clock but the POS's. Throws RangeError on a bad key, sale id (as the service's sale_id rule) or amount. */
export function offlineTicket(offlineKey: string, linkBaseUrl: string, sale: OfflineSale): OfflineTicket {
  const key = CREDENTIAL.exec(offlineKey);
  if (!key) throw new RangeError('offlineKey must be the afok_… key the service issued');
  if (sale.saleId.length === 0 || sale.saleId.length > 100) throw new RangeError('saleId must have 1 to 100 characters');
  const refused = refusedSaleIdChar(sale.saleId);
  if (refused) throw new RangeError(`saleId must not contain ${refused}: it is written into the CFDI, which cannot hold it`);
  const secret = Buffer.from(key[2]!, 'base64url');
  const soldAt = sale.soldAt ?? new Date();
  const seconds = Math.floor(soldAt.getTime() / 1000);
  const [k, w, a, s] = [key[1]!, seconds.toString(36), amountText(sale.amount), sale.saleId];
  const text = ['v2', k, w, a, s].join('\n');
  const m = createHmac('sha256', secret).update(text).digest().subarray(0, 16).toString('base64url');
  let n = BigInt(`0x${createHmac('sha256', secret).update(`code\n${text}`).digest('hex')}`);
  let code = '';
  for (let i = 0; i < 12; i += 1) {
    code += ALPHABET[Number(n % 31n)];
    n /= 31n;
  }
  const link = `${linkBaseUrl.replace(/\/+$/, '')}/q?v=2&k=${k}&w=${w}&a=${a}&s=${encodeURIComponent(s)}&m=${m}`;
  return { link, shortCode: `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`, saleId: s, amount: a, soldAt: new Date(seconds * 1000) };
}
