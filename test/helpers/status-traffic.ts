import type { BootstrapResult } from '../../cli/bootstrap.js';
import { expiryBucket } from '../../shared/domain/expiry-buckets.js';
import { jobId } from '../../shared/platform/jobs.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped, type QrLink } from './buyer.js';
import { harness } from './harness.js';
import { call } from './http.js';

/** The QRs of some traffic, by what happened to them. */
export interface Traffic {
  created: string[];
  scanned: string[];
  invoiced: string[];
  refused: string[];
  expired: string[];
}

const MINUTE_MS = 60_000;

/** `items` in groups of `size` at once: the API renders QRs of requests arriving together in one job. */
async function inGroups<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/**
 * Sales through the real service: `created` QRs; `expired` of them expire (their expiry bucket runs); of the
 * others `scanned` are opened by the buyer, and of those `invoiced` are confirmed and stamped and `refused`
 * are confirmed with a name SAT does not have (the PAC refuses CFDI40145).
 */
export async function makeTraffic(account: BootstrapResult, counts: { created: number; scanned: number; invoiced: number; refused: number; expired: number }): Promise<Traffic> {
  const expiresSoon = new Date(Date.now() + 2_000).toISOString();
  const links = await inGroups(
    Array.from({ length: counts.created }, (_, i) => i),
    8,
    (i) => newQrLink(account, i < counts.expired ? { expires_at: expiresSoon } : {}),
  );
  const expiring = links.slice(0, counts.expired);
  const open = links.slice(counts.expired);
  const scanned = open.slice(0, counts.scanned);
  const invoiced = scanned.slice(0, counts.invoiced);
  const refused = scanned.slice(counts.invoiced, counts.invoiced + counts.refused);
  await inGroups(scanned, 8, async (link) => {
    const res = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    if (res.status !== 200) throw new Error(`not scanned: ${res.status}`);
  });
  const events = await queueEvents('stamp');
  const expiry = await queueEvents('expiry');
  try {
    const confirmed = [...invoiced.map((link) => ({ link, customer: {} })), ...refused.map((link) => ({ link, customer: { name: 'NOMBRE QUE SAT NO TIENE' } }))];
    await inGroups(confirmed, 8, async ({ link, customer }) => {
      const res = await confirmReviewed(link, customer);
      if (res.status !== 202) throw new Error(`not confirmed: ${res.status} ${JSON.stringify(res.body)}`);
    });
    await inGroups(confirmed, 8, ({ link }) => stamped(events, link.qrId));
    // One bucket (or an earlier one running late) expires them all.
    if (expiring.length > 0) {
      const bucket = await harness()
        .producers.queue('expiry')
        .getJob(jobId.expireDue(expiryBucket(new Date(expiresSoon))));
      await bucket?.waitUntilFinished(expiry, 15_000);
    }
  } finally {
    await events.close();
    await expiry.close();
  }
  const ids = (list: QrLink[]) => list.map((l) => l.qrId);
  return { created: ids(links), scanned: ids(scanned), invoiced: ids(invoiced), refused: ids(refused), expired: ids(expiring) };
}

/**
 * Moves sales into the past, as if they happened at `at` (keep it early in its hour: each step is minutes
 * after it): created then; scanned 2 minutes later; confirmed after 5; stamped (or refused) `stampSeconds`
 * after the confirmation; expired after 50. A sale's id and token carry its created_at (its month's partition
 * checks it, issue #41), so a moved sale gets keys of its new instant, and what names it follows: answers the
 * sales' new ids, in the order given.
 */
export async function moveSales(qrIds: string[], at: Date, stampSeconds: number): Promise<string[]> {
  const db = harness().deps.db;
  const later = (minutes: number) => new Date(at.getTime() + minutes * MINUTE_MS);
  const confirmedAt = later(5);
  const stampedAt = new Date(confirmedAt.getTime() + stampSeconds * 1000);
  const moved: string[] = [];
  for (const old of qrIds) {
    const { rows } = await db.raw<{ rows: { id: string; token: string }[] }>(`SELECT 'tra_' || qr_key_at(:at) AS id, qr_key_at(:at) AS token`, { at });
    const { id, token } = rows[0]!;
    // The sale and everything that names it (its lines, keys, invoices) move to the new id and instant.
    await db('qr_transactions')
      .where({ id: old })
      .update({
        id,
        token,
        created_at: at,
        scanned_at: db.raw('CASE WHEN scanned_at IS NULL THEN NULL ELSE ?::timestamptz END', [later(2)]),
        expired_at: db.raw('CASE WHEN expired_at IS NULL THEN NULL ELSE ?::timestamptz END', [later(50)]),
      });
    await db('invoices').where({ transaction_id: old }).update({ transaction_id: id });
    await db('invoice_tickets').where({ transaction_id: old }).update({ transaction_id: id });
    for (const lines of ['qr_concepts', 'qr_concept_taxes', 'qr_sale_keys'])
      await db(lines).where({ transaction_id: old }).update({ transaction_id: id, transaction_created_at: at });
    await db('qr_live_sales').where({ transaction_id: old }).update({ transaction_id: id, transaction_created_at: at });
    moved.push(id);
  }
  await db('invoices')
    .whereIn('transaction_id', moved)
    .update({
      created_at: confirmedAt,
      updated_at: stampedAt,
      stamped_at: db.raw('CASE WHEN stamped_at IS NULL THEN NULL ELSE ?::timestamptz END', [stampedAt]),
    });
  return moved;
}
