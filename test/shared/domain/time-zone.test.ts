import { expect } from 'chai';
import { isIanaTimeZone, localDateTime, withUtcOffset } from '../../../shared/domain/time-zone.js';

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

describe('withUtcOffset (issue #39: the export writes Fecha with its offset beside UTC columns)', () => {
  it("keeps the wall-clock digits and adds the zone's offset at that moment", () => {
    expect(withUtcOffset('2026-11-28T10:15:00', 'America/Mexico_City')).to.equal('2026-11-28T10:15:00-06:00');
    expect(withUtcOffset('2026-07-01T09:00:00', 'America/Tijuana')).to.equal('2026-07-01T09:00:00-07:00');
    expect(withUtcOffset('2026-01-15T09:00:00', 'America/Tijuana')).to.equal('2026-01-15T09:00:00-08:00');
    expect(withUtcOffset('2026-03-01T12:00:00', 'Asia/Kolkata')).to.equal('2026-03-01T12:00:00+05:30');
    expect(withUtcOffset('2026-03-01T12:00:00', 'UTC')).to.equal('2026-03-01T12:00:00+00:00');
    expect(Date.parse(withUtcOffset('2026-11-28T10:15:00', 'America/Mexico_City'))).to.equal(Date.parse('2026-11-28T16:15:00Z'));
  });
});
