import type { ProductionHolidays } from '../../config.ts';
import { holidaysLibrary } from '../../config/holidays.ts';

const DAY = 86_400_000;

/** `YYYY-MM-DD` of the factory's calendar day. */
export const dayIn = (d: Date, zone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);

export interface FactoryCalendar {
  /** Monday to Friday, not a public holiday of the factory's regions nor a closed day of its own. */
  isWorkingDay(ymd: string): boolean;
  /** Why the factory is closed that day (`Saturday`, `Koningsdag`), or null on a working day. */
  closedFor(ymd: string): string | null;
  /**
   * The moment `days` working days after `from`, at the same clock time: an order placed Friday
   * 16:00 with a promise of 1 is due Monday 16:00, or Tuesday when Monday is a holiday.
   */
  addWorkingDays(from: Date, days: number): Date;
}

/**
 * The factory's working days in its time zone: weekends and the public holidays of the configured
 * regions (`date-holidays`, type `public` only: not bank or school holidays or observances) are
 * closed, and so are its own closed dates (PRODUCTION_HOLIDAYS).
 */
export function factoryCalendar(zone: string, spec: ProductionHolidays): FactoryCalendar {
  // The holiday engine loads with the first weekday asked about (holidaysLibrary), not with the service.
  let made: InstanceType<ReturnType<typeof holidaysLibrary>>[] | undefined;
  const regions = () => {
    const Holidays = holidaysLibrary();
    made ??= spec.regions.map((r) => (r.state ? new Holidays(r.country, r.state) : new Holidays(r.country)));
    return made;
  };
  const byYear = new Map<number, Map<string, string>>();
  const own = new Set(spec.closedDays);
  const holidaysOf = (year: number) => {
    let days = byYear.get(year);
    if (!days) {
      days = new Map();
      for (const h of regions())
        for (const d of h.getHolidays(year) || [])
          if (d.type === 'public' && !days.has(d.date.slice(0, 10))) days.set(d.date.slice(0, 10), d.name);
      byYear.set(year, days);
    }
    return days;
  };
  const closedFor = (ymd: string): string | null => {
    const weekday = new Date(`${ymd}T12:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) return weekday === 0 ? 'Sunday' : 'Saturday';
    if (own.has(ymd)) return 'closed';
    return holidaysOf(Number(ymd.slice(0, 4))).get(ymd) ?? null;
  };
  return {
    closedFor,
    isWorkingDay: (ymd) => closedFor(ymd) === null,
    addWorkingDays(from, days) {
      let at = from.getTime();
      for (let left = days; left > 0; ) {
        at += DAY;
        if (closedFor(dayIn(new Date(at), zone)) === null) left--;
      }
      return new Date(at);
    },
  };
}
