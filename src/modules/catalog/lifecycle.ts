import { STATUSES, type ProductStatus } from './schemas.ts';

const DAY = 86_400_000;
const YEAR = 365.25 * DAY;

/**
 * When a device's cases move through the stages, counted from the device's release date. Cases go
 * on pre-order when the phone is announced (~3 months ahead: makers work from dummies), sell while
 * the phone's installed base buys cases, are run out, then leave the catalog.
 */
export const LIFECYCLE = {
  prelaunchBeforeDays: 90,
  sunsetAfterYears: 3.5,
  endAfterYears: 4.5,
  archiveAfterYears: 6.5,
} as const;

/** The stage of a device's products on `catalogDate`, from the device's release date (YYYY-MM-DD). */
export function stageOn(releaseDate: string, catalogDate: Date): ProductStatus {
  const release = Date.parse(`${releaseDate}T00:00:00Z`);
  const at = catalogDate.getTime();
  if (at < release - LIFECYCLE.prelaunchBeforeDays * DAY) return 'announced';
  if (at < release) return 'prelaunched';
  if (at < release + LIFECYCLE.sunsetAfterYears * YEAR) return 'launched';
  if (at < release + LIFECYCLE.endAfterYears * YEAR) return 'sunsetted';
  if (at < release + LIFECYCLE.archiveAfterYears * YEAR) return 'ended';
  return 'archived';
}

/**
 * The lifecycle only moves forward (spec: product lifecycle): a derived stage behind the current one
 * (a catalog date in the past, a release date moved later) keeps the current stage.
 */
export const forwardOnly = (current: string | undefined, derived: ProductStatus): string =>
  current !== undefined && STATUSES.indexOf(current as ProductStatus) > STATUSES.indexOf(derived) ? current : derived;
