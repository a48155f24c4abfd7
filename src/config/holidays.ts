import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';

/**
 * date-holidays in its two parts, each loaded by its first use through its CommonJS build: the
 * regions' table (~0.1 s), which checking PRODUCTION_HOLIDAYS needs at start, and the calendar
 * engine (date-holidays-parser and its astronomy, ~100 modules and ~0.1 s more), which only the
 * first working-day question of a process pays for. Both parts share one copy of the table
 * through require's cache.
 */
const require = createRequire(import.meta.url);

type Places = Record<string, { states?: Places; regions?: Places }>;

/** The countries (ISO codes) and, per country, the states or provinces date-holidays knows. */
export function holidayRegions(): Places {
  return (require('date-holidays/data') as { data: { holidays: Places } }).data.holidays;
}

/** The date-holidays class itself. */
export function holidaysLibrary(): typeof Holidays {
  return require('date-holidays') as typeof Holidays;
}
