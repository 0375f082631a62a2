import { expect } from 'chai';
import { isIanaTimeZone, localDateTime } from '../../../shared/domain/time-zone.js';

describe('time zones', () => {
  it('accepts IANA names and refuses offsets and nonsense', () => {
    for (const zone of ['America/Mexico_City', 'America/Tijuana', 'UTC', 'Etc/GMT+6', 'America/Argentina/Buenos_Aires']) expect(isIanaTimeZone(zone), zone).to.equal(true);
    for (const zone of ['+06:00', '-0600', 'Mars/Olympus', '', 'America/Mexico_City; DROP', 'x'.repeat(100)]) expect(isIanaTimeZone(zone), zone).to.equal(false);
  });

  it('gives the wall-clock time in the zone, across DST rules', () => {
    const at = new Date('2026-07-01T18:30:05Z');
    expect(localDateTime(at, 'America/Mexico_City')).to.equal('2026-07-01T12:30:05'); // no DST since 2022
    expect(localDateTime(at, 'America/Tijuana')).to.equal('2026-07-01T11:30:05'); // PDT
    expect(localDateTime(new Date('2026-01-01T00:00:00Z'), 'America/Cancun')).to.equal('2025-12-31T19:00:00');
  });
});
