import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LEVELS = ['basic', 'tracked', 'express'] as const;
export type ShippingLevel = (typeof LEVELS)[number];

interface LevelData {
  basePrice: number;
  perItemPrice: number;
  maxValueCents: number | null;
  maxWeightGrams: number | null;
  deliveryDays: { min: number; max: number };
}
interface Zone {
  code: string;
  countries: string[] | '*';
  levels: Partial<Record<ShippingLevel, LevelData>>;
}
interface ShippingData {
  deniedCountries: string[];
  packagingWeightGrams: number;
  packstation: { countries: string[]; levels: ShippingLevel[] };
  zones: Zone[];
}

/** Loaded once at start: a broken data file must stop the process, not a request. */
function load(): ShippingData {
  const data = JSON.parse(readFileSync(join(import.meta.dirname, 'shipping-data.json'), 'utf8')) as ShippingData;
  if (!data.zones.some((z) => z.countries === '*'))
    throw new Error('shipping-data.json needs a catch-all zone ("countries": "*")');
  for (const z of data.zones) {
    for (const [level, d] of Object.entries(z.levels)) {
      if (!LEVELS.includes(level as ShippingLevel) || !d || d.deliveryDays.min > d.deliveryDays.max)
        throw new Error(`shipping-data.json: bad level ${level} in zone ${z.code}`);
    }
  }
  return data;
}

export const SHIPPING_DATA = load();

export const isDeniedCountry = (cc: string) => SHIPPING_DATA.deniedCountries.includes(cc.toUpperCase());

export function zoneOf(countryCode: string): Zone {
  const cc = countryCode.toUpperCase();
  return (
    SHIPPING_DATA.zones.find((z) => Array.isArray(z.countries) && z.countries.includes(cc)) ??
    SHIPPING_DATA.zones.find((z) => z.countries === '*')!
  );
}

export interface Parcel {
  countryCode: string;
  packstation: boolean;
  /** Product value in EUR cents. */
  valueCents: number;
  /** Product weight in grams (packaging is added here). */
  weightGrams: number;
  items: number;
}

/** The shipping-relevant facts of an order's lines (canceled quantities do not travel). */
export function parcelOf(
  lines: Array<{ unit_price_cents: number; unit_weight_grams: number; quantity: number; canceled_quantity: number }>,
  countryCode: string,
  packstation: boolean,
): Parcel {
  let valueCents = 0;
  let weightGrams = 0;
  let items = 0;
  for (const l of lines) {
    const q = l.quantity - l.canceled_quantity;
    valueCents += l.unit_price_cents * q;
    weightGrams += l.unit_weight_grams * q;
    items += q;
  }
  return { countryCode, packstation, valueCents, weightGrams, items };
}

/** Every level the parcel can ship with, lowest first, with its price. */
export function availableLevels(p: Parcel): Array<{ level: ShippingLevel; price: number }> {
  const zone = zoneOf(p.countryCode);
  const weight = p.weightGrams + SHIPPING_DATA.packagingWeightGrams;
  const out: Array<{ level: ShippingLevel; price: number }> = [];
  for (const level of LEVELS) {
    const d = zone.levels[level];
    if (!d) continue;
    if (p.packstation && !SHIPPING_DATA.packstation.levels.includes(level)) continue;
    if (d.maxValueCents !== null && p.valueCents > d.maxValueCents) continue;
    if (d.maxWeightGrams !== null && weight > d.maxWeightGrams) continue;
    out.push({ level, price: d.basePrice + d.perItemPrice * p.items });
  }
  return out;
}

/**
 * The quote's options: from the requested minimal level upwards; when the destination offers
 * nothing that high (express to a Packstation), the highest level it does offer.
 */
export function shippingOptions(
  p: Parcel,
  minimal: ShippingLevel = 'basic',
): Array<{ level: ShippingLevel; price: number }> {
  const all = availableLevels(p);
  const rank = LEVELS.indexOf(minimal);
  const atLeast = all.filter((o) => LEVELS.indexOf(o.level) >= rank);
  return atLeast.length > 0 ? atLeast : all.slice(-1);
}

/** The price of one level for the parcel, or null when that level cannot carry it. */
export function priceAt(p: Parcel, level: ShippingLevel): number | null {
  return availableLevels(p).find((o) => o.level === level)?.price ?? null;
}

/** Promised delivery time in business days for a destination and level (claims use `max`). */
export function deliveryWindow(
  countryCode: string,
  level: ShippingLevel,
): { minBusinessDays: number; maxBusinessDays: number } {
  const zone = zoneOf(countryCode);
  const d =
    zone.levels[level] ??
    zoneOf('*').levels[level] ??
    SHIPPING_DATA.zones.find((z) => z.countries === '*')!.levels.tracked!;
  return { minBusinessDays: d.deliveryDays.min, maxBusinessDays: d.deliveryDays.max };
}
