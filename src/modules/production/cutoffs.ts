import { localParts, zonedInstant } from '../../platform/zoned-time.ts';

/**
 * The first cut-off (local `HH:MM` times in `zone`) strictly after `after`, on a day `open` says
 * the factory works (`YYYY-MM-DD`; every day when not given).
 */
export function nextCutoff(
  after: Date,
  times: string[],
  zone: string,
  open: (ymd: string) => boolean = () => true,
): Date {
  const today = localParts(after, zone);
  // A closed stretch is at most a few weeks (a long weekend, a factory's summer close).
  for (let day = 0; day <= 60; day++) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    if (!open(date.toISOString().slice(0, 10))) continue;
    for (const t of times) {
      const [hh, mm] = t.split(':').map(Number);
      const at = zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hh, mm, zone);
      if (at.getTime() > after.getTime()) return at;
    }
  }
  throw new Error(`no cut-off after ${after.toISOString()} in ${times.join(',')}`);
}

/** The latest cut-off at or before `at`. */
export function lastCutoff(at: Date, times: string[], zone: string): Date {
  const today = localParts(at, zone);
  for (let day = 0; day >= -2; day--) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    for (const t of [...times].reverse()) {
      const [hh, mm] = t.split(':').map(Number);
      const c = zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hh, mm, zone);
      if (c.getTime() <= at.getTime()) return c;
    }
  }
  throw new Error(`no cut-off before ${at.toISOString()} in ${times.join(',')}`);
}
