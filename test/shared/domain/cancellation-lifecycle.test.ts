import { expect } from 'chai';
import { CANCELLATION_MOVES, followCancellation, type CancellationStatus, type SatReading } from '../../../shared/domain/cancellation-lifecycle.js';

const HOUR_MS = 3600_000;
const BOUNDS = { notFoundGraceMs: 72 * HOUR_MS, pendingMaxMs: 240 * HOUR_MS };
const SINCE = new Date('2026-11-20T12:00:00Z');
const at = (hours: number) => new Date(SINCE.getTime() + hours * HOUR_MS);

const WAITING: SatReading = { query: 'found', state: 'Vigente', cancellationStatus: 'En proceso' };
const NOT_FOUND: SatReading = { query: 'not_found', state: 'No Encontrado', cancellationStatus: '' };
const UNREADABLE: SatReading = { query: 'invalid_expression', state: '', cancellationStatus: '' };

const step = (status: CancellationStatus, sat: SatReading, hours: number) => followCancellation({ status, since: SINCE }, sat, at(hours), BOUNDS);

describe("a cancellation request moved by SAT's status answers (shared/domain/cancellation-lifecycle.ts)", () => {
  it("SAT's word ends it: Cancelado is CANCELLED, Solicitud rechazada REJECTED, from any polled state", () => {
    for (const status of ['REQUESTED', 'PENDING', 'NOT_FOUND_AT_SAT'] as CancellationStatus[]) {
      expect(step(status, { query: 'found', state: 'Cancelado', cancellationStatus: 'Plazo vencido' }, 1)).to.deep.equal({ to: 'CANCELLED' });
      expect(step(status, { query: 'found', state: 'Vigente', cancellationStatus: 'Solicitud rechazada' }, 1)).to.deep.equal({ to: 'REJECTED' });
    }
  });

  it('N - 602 is NOT_FOUND_AT_SAT, kept for the grace, then NEEDS_ATTENTION (not_found_at_sat); found again it waits as PENDING', () => {
    expect(step('REQUESTED', NOT_FOUND, 0)).to.deep.equal({ to: 'NOT_FOUND_AT_SAT' });
    expect(step('PENDING', NOT_FOUND, 500)).to.deep.equal({ to: 'NOT_FOUND_AT_SAT' });
    expect(step('NOT_FOUND_AT_SAT', NOT_FOUND, 72)).to.deep.equal({ to: 'NOT_FOUND_AT_SAT' });
    expect(step('NOT_FOUND_AT_SAT', NOT_FOUND, 72.01)).to.deep.equal({ to: 'NEEDS_ATTENTION', cause: 'not_found_at_sat' });
    expect(step('NOT_FOUND_AT_SAT', WAITING, 100)).to.deep.equal({ to: 'PENDING' });
  });

  it('N - 601 (SAT could not read the expression) needs attention at once: waiting mends nothing', () => {
    for (const status of ['REQUESTED', 'PENDING', 'NOT_FOUND_AT_SAT'] as CancellationStatus[]) {
      expect(step(status, UNREADABLE, 0)).to.deep.equal({ to: 'NEEDS_ATTENTION', cause: 'sat_rejected_expression' });
    }
  });

  it('waiting for the receptor is PENDING up to the bound, then NEEDS_ATTENTION (pending_too_long)', () => {
    expect(step('REQUESTED', WAITING, 0)).to.deep.equal({ to: 'PENDING' });
    expect(step('PENDING', WAITING, 240)).to.deep.equal({ to: 'PENDING' });
    expect(step('PENDING', WAITING, 240.01)).to.deep.equal({ to: 'NEEDS_ATTENTION', cause: 'pending_too_long' });
  });

  it('every step it takes is a move the lifecycle allows', () => {
    const readings = [WAITING, NOT_FOUND, UNREADABLE, { query: 'found', state: 'Cancelado', cancellationStatus: '' } as SatReading];
    for (const status of ['REQUESTED', 'PENDING', 'NOT_FOUND_AT_SAT'] as CancellationStatus[]) {
      for (const sat of readings) {
        for (const hours of [0, 100, 1000]) {
          const { to } = step(status, sat, hours);
          if (to !== status) expect(CANCELLATION_MOVES[status], `${status} → ${to}`).to.include(to);
        }
      }
    }
  });
});
