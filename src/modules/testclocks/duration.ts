import { badRequest } from '../../platform/errors.ts';

const ISO_DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * `from` moved forward by an ISO 8601 duration (`P1D`, `PT90M`, `P1M2DT3H`). Years and months are
 * calendar steps in UTC (31 January + P1M is 3 March, as `Date` counts); the rest is exact time.
 */
export function addIsoDuration(from: Date, duration: string, field: string): Date {
  const m = ISO_DURATION.exec(duration);
  if (!m) throw badRequest(`${field} must be an ISO 8601 duration such as P1D, PT2H or P1M2DT3H`);
  const [y, mo, w, d, h, mi] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const s = Number(m[7] ?? 0);
  const out = new Date(from);
  if (y || mo) out.setUTCMonth(out.getUTCMonth() + mo + 12 * y);
  const ms = (((w * 7 + d) * 24 + h) * 60 + mi) * 60_000 + Math.round(s * 1000);
  out.setTime(out.getTime() + ms);
  // Past what a Date holds it is NaN: the caller bounds the clock, and refuses that too.
  return out;
}
