import { amsterdamMidnight as midnightOn, amsterdamTime } from '../../platform/amsterdam.ts';

/**
 * Day counting for claims (DESIGN.md): the warranty is counted in exact instants; package-missing
 * filing opens at 00:00 Europe/Amsterdam on a calendar date derived from the Amsterdam ship day.
 */
const DAY_MS = 24 * 3600_000;

export const WARRANTY_DAYS = 100;
export const MIN_CALENDAR_DAYS = 2;
/** "Roughly four months" after a decision or retraction, evidence files are purged. */
export const EVIDENCE_RETENTION_DAYS = 120;
export const UNUSED_EVIDENCE_DAYS = 1;
export const CLOSED_WINDOW_DAYS = 14;

export const addDays = (at: Date, days: number) => new Date(at.getTime() + days * DAY_MS);

/** The Amsterdam calendar date of an instant, as a UTC midnight (for plain date arithmetic). */
export function amsterdamDate(at: Date): Date {
  const l = amsterdamTime(at);
  return new Date(Date.UTC(l.year, l.month - 1, l.day));
}

/** 00:00 Amsterdam time on a calendar date given as a UTC midnight. */
export const amsterdamMidnight = (date: Date): Date =>
  midnightOn(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());

/** `date` plus `n` business days (Monday to Friday). */
export function addBusinessDays(date: Date, n: number): Date {
  let d = date;
  let left = n;
  while (left > 0) {
    d = addDays(d, 1);
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return d;
}

/**
 * The first instant a package-missing claim can be filed: 00:00 Amsterdam on the later of the ship
 * day + 2 calendar days and the day after the delivery window's last business day. The window's
 * last day is still a promised delivery day, so a claim on it would come before the promise ran out.
 */
export function packageMissingOpens(shippedAt: Date, windowBusinessDays: number): { at: Date; date: string } {
  const shipDay = amsterdamDate(shippedAt);
  const calendar = addDays(shipDay, MIN_CALENDAR_DAYS);
  const business = addDays(addBusinessDays(shipDay, windowBusinessDays), 1);
  const day = calendar.getTime() >= business.getTime() ? calendar : business;
  return { at: amsterdamMidnight(day), date: day.toISOString().slice(0, 10) };
}

/** Within the warranty while now < shipped + 100 days. */
export function warrantyEnds(shippedAt: Date): Date {
  return addDays(shippedAt, WARRANTY_DAYS);
}
