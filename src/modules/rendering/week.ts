import { amsterdamMidnight, amsterdamTime } from '../../platform/amsterdam.ts';

/**
 * The rendertoken week: Monday 00:00 to Monday 00:00 Europe/Amsterdam, so a week is 167 or 169
 * hours long around the changes of summer time (platform/amsterdam.ts).
 */
export { amsterdamIso } from '../../platform/amsterdam.ts';

export interface TokenWeek {
  /** The Monday's Amsterdam date, `YYYY-MM-DD`: the key of the usage row. */
  week: string;
  starts: Date;
  resets: Date;
}

export function tokenWeek(now: Date): TokenWeek {
  const l = amsterdamTime(now);
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
