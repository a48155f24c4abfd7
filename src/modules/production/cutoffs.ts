import { localParts, zonedInstant } from '../../platform/zoned-time.ts';

/** The first cut-off (local `HH:MM` times in `zone`) strictly after `after`. */
export function nextCutoff(after: Date, times: string[], zone: string): Date {
  const today = localParts(after, zone);
  for (let day = 0; day <= 2; day++) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
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
