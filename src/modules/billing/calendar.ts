import { AMSTERDAM, amsterdamDay, amsterdamMidnight } from '../../platform/amsterdam.ts';
import { badRequest } from '../../platform/errors.ts';

/** The seller's time zone: invoice months, issue years and supply dates are Dutch calendar days. */
export const BILLING_TIME_ZONE = AMSTERDAM;

export { amsterdamDay };

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
