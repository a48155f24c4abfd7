/**
 * The rendertoken week: Monday 00:00 to Monday 00:00 Europe/Amsterdam. Amsterdam is +01:00 in
 * winter and +02:00 in summer, so a week is 167 or 169 hours long around the changes; everything
 * here goes through Intl (the platform's tz database) instead of a fixed offset.
 */
const ZONE = 'Europe/Amsterdam';

const parts = new Intl.DateTimeFormat('en-GB', {
  timeZone: ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

interface Local {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function local(at: Date): Local {
  const p: Record<string, number> = {};
  for (const x of parts.formatToParts(at)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
}

/** Amsterdam's offset from UTC at an instant, in minutes (60 or 120). */
export function amsterdamOffsetMinutes(at: Date): number {
  const l = local(at);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The instant of 00:00 Amsterdam time on a calendar date (midnight is never inside a DST gap there). */
function amsterdamMidnight(year: number, month: number, day: number): Date {
  const wall = Date.UTC(year, month - 1, day);
  let guess = wall - 60 * 60_000;
  for (let i = 0; i < 3; i++) guess = wall - amsterdamOffsetMinutes(new Date(guess)) * 60_000;
  return new Date(guess);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** ISO 8601 in Amsterdam local time with its offset, e.g. `2026-03-30T00:00:00+02:00`. */
export function amsterdamIso(at: Date): string {
  const l = local(at);
  const off = amsterdamOffsetMinutes(at);
  const sign = off < 0 ? '-' : '+';
  return `${l.year}-${pad(l.month)}-${pad(l.day)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`;
}

export interface TokenWeek {
  /** The Monday's Amsterdam date, `YYYY-MM-DD`: the key of the usage row. */
  week: string;
  starts: Date;
  resets: Date;
}

export function tokenWeek(now: Date): TokenWeek {
  const l = local(now);
  // Calendar arithmetic on the local date, done in UTC so no zone rule interferes.
  const date = new Date(Date.UTC(l.year, l.month - 1, l.day));
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  const monday = new Date(date.getTime() - sinceMonday * 86_400_000);
  const next = new Date(monday.getTime() + 7 * 86_400_000);
  return {
    week: monday.toISOString().slice(0, 10),
    starts: amsterdamMidnight(monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate()),
    resets: amsterdamMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()),
  };
}

/** Whole seconds until the reset, at least 1 (a Retry-After of 0 would invite a busy loop). */
export function secondsUntil(reset: Date, now: Date): number {
  return Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
}
