/**
 * Time in Europe/Amsterdam, where the seller invoices and the factory works: calendar days, months
 * and weeks begin at Amsterdam midnight. Amsterdam is +01:00 in winter and +02:00 in summer, so
 * everything here goes through Intl (the platform's tz database) instead of a fixed offset.
 */
export const AMSTERDAM = 'Europe/Amsterdam';

const parts = new Intl.DateTimeFormat('en-GB', {
  timeZone: AMSTERDAM,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** An instant's wall-clock reading in Amsterdam. */
export interface AmsterdamTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function amsterdamTime(at: Date): AmsterdamTime {
  const p: Record<string, number> = {};
  for (const x of parts.formatToParts(at)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** The Amsterdam calendar day of an instant, `YYYY-MM-DD`. */
export function amsterdamDay(at: Date): string {
  const l = amsterdamTime(at);
  return `${pad(l.year, 4)}-${pad(l.month)}-${pad(l.day)}`;
}

/** Amsterdam's offset from UTC at an instant, in minutes (60 or 120). */
export function amsterdamOffsetMinutes(at: Date): number {
  const l = amsterdamTime(at);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/**
 * The instant at which Amsterdam's wall clock reads `wall` (a time given as milliseconds of its UTC
 * fields). Meant for times that exist there, such as any midnight (never inside a DST gap there).
 */
export function amsterdamInstant(wall: number): Date {
  let guess = wall - 60 * 60_000;
  for (let i = 0; i < 3; i++) guess = wall - amsterdamOffsetMinutes(new Date(guess)) * 60_000;
  return new Date(guess);
}

/** The instant of 00:00 Amsterdam time on a calendar date (`month` 1-12). */
export function amsterdamMidnight(year: number, month: number, day: number): Date {
  return amsterdamInstant(Date.UTC(year, month - 1, day));
}

/** ISO 8601 in Amsterdam local time with its offset, e.g. `2026-03-30T00:00:00+02:00`. */
export function amsterdamIso(at: Date): string {
  const l = amsterdamTime(at);
  const off = amsterdamOffsetMinutes(at);
  const sign = off < 0 ? '-' : '+';
  return `${l.year}-${pad(l.month)}-${pad(l.day)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
}
