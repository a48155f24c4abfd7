import { badRequest } from '../../platform/errors.ts';

/** The seller's time zone: invoice months, issue years and supply dates are Dutch calendar days. */
export const BILLING_TIME_ZONE = 'Europe/Amsterdam';

const parts = new Intl.DateTimeFormat('en-CA', {
  timeZone: BILLING_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The Amsterdam calendar day of an instant, `YYYY-MM-DD`. */
export function amsterdamDay(at: Date): string {
  const p = Object.fromEntries(parts.formatToParts(at).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}`;
}

/** The instant an Amsterdam calendar day starts (midnight is never skipped by Dutch DST changes). */
export function amsterdamMidnight(year: number, month1: number, day: number): Date {
  const wanted = `${String(year).padStart(4, '0')}-${String(month1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  for (const hours of [1, 2, 0]) {
    const t = new Date(Date.UTC(year, month1 - 1, day) - hours * 3_600_000);
    const p = Object.fromEntries(parts.formatToParts(t).map((x) => [x.type, x.value]));
    if (`${p.year}-${p.month}-${p.day}` === wanted && p.hour === '00' && p.minute === '00') return t;
  }
  throw new Error(`no Amsterdam midnight found for ${wanted}`);
}

/**
 * `2026-10` → the month's first day, the next month's first day (exclusive end), and the instants
 * they start at in Amsterdam: a charge at 23:30 UTC on 31 October is in November.
 */
export function monthOf(month: string): { start: string; end: string; startAt: Date; endAt: Date } {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!m) throw badRequest(`month "${month}" is not YYYY-MM`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const ny = mo === 12 ? y + 1 : y;
  const nm = mo === 12 ? 1 : mo + 1;
  return {
    start: `${m[1]}-${m[2]}-01`,
    end: `${ny}-${String(nm).padStart(2, '0')}-01`,
    startAt: amsterdamMidnight(y, mo, 1),
    endAt: amsterdamMidnight(ny, nm, 1),
  };
}

/** The Amsterdam month before the one `at` falls in, as `YYYY-MM`. */
export function previousMonth(at: Date): string {
  const [y, m] = amsterdamDay(at).split('-').map(Number);
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** The Amsterdam year of an instant: the numbering series an invoice issued then belongs to. */
export const amsterdamYear = (at: Date) => Number(amsterdamDay(at).slice(0, 4));
