/**
 * Wall-clock time in any IANA zone through Intl (the platform's tz database), never a fixed
 * offset: summer time moves the offset twice a year.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/** Local wall-clock fields of an instant in the zone (to the minute). */
export function localParts(at: Date, zone: string): { y: number; m: number; d: number; hh: number; mm: number } {
  const p: Record<string, number> = {};
  for (const x of formatOf(zone).formatToParts(at)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { y: p.year, m: p.month, d: p.day, hh: p.hour, mm: p.minute };
}

/** The zone's offset from UTC at `at`, in ms. */
function offsetMs(at: Date, zone: string): number {
  const p = localParts(at, zone);
  return Date.UTC(p.y, p.m - 1, p.d, p.hh, p.mm) - Math.floor(at.getTime() / 60_000) * 60_000;
}

/** The instant the zone's clocks show `hh:mm` on the given local date. */
export function zonedInstant(y: number, m: number, d: number, hh: number, mm: number, zone: string): Date {
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  const first = guess - offsetMs(new Date(guess), zone);
  // Across a change of offset the offset at the answer can differ from the guess's: correct once.
  return new Date(guess - offsetMs(new Date(first), zone));
}

/** The local calendar date of an instant in the zone, as YYYY-MM-DD. */
export function localDate(at: Date, zone: string): string {
  const p = localParts(at, zone);
  return `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}
