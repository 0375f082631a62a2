import { expect } from 'chai';
import { INVOICE_MOVES, type InvoiceStatus } from '../../../shared/domain/invoice-lifecycle.js';
import { isExpired, QR_MOVES, type QrStatus } from '../../../shared/domain/qr-lifecycle.js';
import { CANCELLATION_MOVES, type CancellationStatus } from '../../../shared/domain/cancellation-lifecycle.js';
import { harness } from '../../helpers/harness.js';

/** The values a status column's CHECK constraint allows, read from PostgreSQL. */
async function allowed(table: string): Promise<string[]> {
  const { rows } = (await harness().deps.db.raw(
    `
    SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
    WHERE t.relname = ? AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%status%'`,
    [table],
  )) as { rows: { def: string }[] };
  return [...new Set(rows.flatMap((r) => [...r.def.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!)))].sort();
}

describe('QR, invoice and cancellation lifecycles, each in one module', () => {
  it('name exactly the states the database allows, with the final ones final', async () => {
    expect(Object.keys(QR_MOVES).sort()).to.deep.equal(await allowed('qr_transactions'));
    expect(Object.keys(INVOICE_MOVES).sort()).to.deep.equal(await allowed('invoices'));
    for (const final of ['EXPIRED', 'CANCELLED'] as QrStatus[]) expect(QR_MOVES[final]).to.deep.equal([]);
    for (const final of ['REFUSED', 'CANCELLED'] as InvoiceStatus[]) expect(INVOICE_MOVES[final]).to.deep.equal([]);
    expect(Object.keys(CANCELLATION_MOVES).sort()).to.deep.equal(await allowed('invoice_cancellations'));
    for (const final of ['CANCELLED', 'REJECTED', 'FAILED'] as CancellationStatus[]) expect(CANCELLATION_MOVES[final]).to.deep.equal([]);
  });

  it('expire a QR once its time passed, unless it is finished or its confirmation is being stamped', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const past = new Date('2026-11-24T11:59:59Z');
    const future = new Date('2026-11-24T12:00:01Z');
    expect(isExpired({ status: 'PENDING', expires_at: past, confirmed_at: null }, now)).to.equal(true);
    expect(isExpired({ status: 'SCANNED', expires_at: now, confirmed_at: null }, now)).to.equal(true);
    expect(isExpired({ status: 'SCANNED', expires_at: past, confirmed_at: past }, now)).to.equal(false);
    expect(isExpired({ status: 'PENDING', expires_at: future, confirmed_at: null }, now)).to.equal(false);
    expect(isExpired({ status: 'INVOICED', expires_at: past, confirmed_at: null }, now)).to.equal(false);
    expect(isExpired({ status: 'EXPIRED', expires_at: future, confirmed_at: null }, now)).to.equal(true);
  });
});
