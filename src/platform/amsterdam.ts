import { localDate, localParts, zonedInstant } from './zoned-time.ts';

/**
 * Time in Europe/Amsterdam, where the seller invoices and the factory works: calendar days, months
 * and weeks begin at Amsterdam midnight. Amsterdam is +01:00 in winter and +02:00 in summer; the
 * zone's rules come from zoned-time.ts (Intl), never a fixed offset.
 */
export const AMSTERDAM = 'Europe/Amsterdam';

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
  const p = localParts(at, AMSTERDAM);
  // Amsterdam's offsets are whole minutes: its seconds are UTC's.
  return { year: p.y, month: p.m, day: p.d, hour: p.hh, minute: p.mm, second: at.getUTCSeconds() };
}

/** The Amsterdam calendar day of an instant, `YYYY-MM-DD`. */
export const amsterdamDay = (at: Date): string => localDate(at, AMSTERDAM);

/** Amsterdam's offset from UTC at an instant, in minutes (60 or 120). */
export function amsterdamOffsetMinutes(at: Date): number {
  const l = amsterdamTime(at);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The instant of 00:00 Amsterdam time on a calendar date (`month` 1-12; midnight is never skipped there). */
export const amsterdamMidnight = (year: number, month: number, day: number): Date =>
  zonedInstant(year, month, day, 0, 0, AMSTERDAM);

const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');

/** ISO 8601 in Amsterdam local time with its offset, e.g. `2026-03-30T00:00:00+02:00`. */
export function amsterdamIso(at: Date): string {
  const l = amsterdamTime(at);
  const off = amsterdamOffsetMinutes(at);
  const sign = off < 0 ? '-' : '+';
  return `${l.year}-${pad(l.month)}-${pad(l.day)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
}
