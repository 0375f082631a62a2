/** IANA time zones (X-TIME-ZONE) and wall-clock times in them, via the runtime's ICU data. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatter(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    // Names only: ICU also accepts raw offsets such as "+06:00", which are not IANA zones.
    if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone) || zone.length > 64) {
      f = null;
    } else {
      try {
        f = new Intl.DateTimeFormat('en-CA', {
          timeZone: zone,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
        });
      } catch {
        f = null;
      }
    }
    if (formatters.size < 1000) formatters.set(zone, f);
  }
  return f;
}

export function isIanaTimeZone(zone: string): boolean {
  return formatter(zone) !== null;
}

/** `YYYY-MM-DDTHH:mm:ss` as a clock in `zone` shows `at` (the form of CFDI's Fecha). */
export function localDateTime(at: Date, zone: string): string {
  const f = formatter(zone);
  if (!f) throw new RangeError(`not an IANA time zone: ${zone}`);
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(at)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * Today's calendar date (YYYY-MM-DD) in central Mexico, the date catalog validity is judged on when no
 * document time zone applies (management checks, CSF synchronization). UTC would move the date six hours early.
 */
export function satToday(now: Date = new Date()): string {
  return localDateTime(now, 'America/Mexico_City').slice(0, 10);
}

/**
 * A date as a buyer reads it: day, month and year in central Mexico ("24 de noviembre de 2026"). An ISO
 * instant, or a local time without offset as SAT writes it (an acuse's or a CFDI's Fecha).
 */
export function mexicoLongDate(iso: string): string {
  const at = /[zZ]|[+-]\d\d:\d\d$/.test(iso) ? new Date(iso) : new Date(`${iso}-06:00`);
  return at.toLocaleDateString('es-MX', { timeZone: 'America/Mexico_City', day: 'numeric', month: 'long', year: 'numeric' });
}

/**
 * The instant a calendar day (`YYYY-MM-DD`) begins on the clocks of `zone`: the bound of a date filter read
 * in the merchant's time zone. Two passes settle a day that starts next to an offset change.
 */
export function zonedDayStart(date: string, zone: string): Date {
  return zonedInstant(`${date}T00:00:00`, zone);
}

/** The instant a wall-clock time (`YYYY-MM-DDTHH:MM:SS`) names on the clocks of `zone`; two passes settle one next to an offset change. */
export function zonedInstant(local: string, zone: string): Date {
  const wall = Date.parse(`${local}Z`);
  let at = wall;
  for (let i = 0; i < 2; i++) {
    const shown = Date.parse(`${localDateTime(new Date(at), zone)}Z`);
    at += wall - shown;
  }
  return new Date(at);
}

/**
 * A wall-clock time of `zone` with its UTC offset (`2026-11-28T10:15:00` → `2026-11-28T10:15:00-06:00`): the
 * same digits, and an instant nobody can misread beside UTC times.
 */
export function withUtcOffset(local: string, zone: string): string {
  const minutes = Math.round((Date.parse(`${local}Z`) - zonedInstant(local, zone).getTime()) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The calendar day after `date` (`YYYY-MM-DD`), for a period's exclusive end. */
export function nextDay(date: string): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}
