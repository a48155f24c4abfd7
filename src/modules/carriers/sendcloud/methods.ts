import { readFileSync } from 'node:fs';
import type { ShippingLevel } from '../../shipping/data.ts';

export const EU = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

export interface MethodRule {
  level: ShippingLevel;
  destinations: string[];
  maxWeightGrams: number;
  shippingOptionCode: string;
}

export interface ShippingMethods {
  customs: {
    hsCode: string;
    description: string;
    originCountry: string;
    exportReason: 'gift' | 'documents' | 'commercial_goods' | 'commercial_sample';
    exportType: 'private' | 'commercial_b2c' | 'commercial_b2b';
  };
  packagingGrams: number;
  rules: MethodRule[];
}

export const METHODS_FILE = new URL('./shipping-methods.json', import.meta.url);

/** Reads and checks the mapping file; a broken file stops the start, not a shipment. */
export function loadShippingMethods(path: URL | string = METHODS_FILE): ShippingMethods {
  const m = JSON.parse(readFileSync(path, 'utf8')) as ShippingMethods;
  if (!Array.isArray(m.rules) || m.rules.length === 0) throw new Error(`${path}: rules must list at least one rule`);
  for (const [i, r] of m.rules.entries()) {
    if (r.level !== 'tracked' && r.level !== 'express')
      throw new Error(`${path}: rules[${i}].level must be tracked or express (basic parcels carry no carrier label)`);
    if (!Array.isArray(r.destinations) || r.destinations.some((d) => !/^([A-Z]{2}|EU|\*)$/.test(d)))
      throw new Error(`${path}: rules[${i}].destinations takes country codes, EU or *`);
    if (!Number.isInteger(r.maxWeightGrams) || r.maxWeightGrams <= 0)
      throw new Error(`${path}: rules[${i}].maxWeightGrams must be a positive whole number`);
    if (typeof r.shippingOptionCode !== 'string' || !r.shippingOptionCode)
      throw new Error(`${path}: rules[${i}].shippingOptionCode is missing`);
  }
  if (!/^\d{6,10}$/.test(m.customs?.hsCode ?? '')) throw new Error(`${path}: customs.hsCode must be 6 to 10 digits`);
  return m;
}

const covers = (d: string, country: string) => d === '*' || d === country || (d === 'EU' && EU.has(country));

/** The shipping option for a parcel, or null when no rule covers it (the operator is told which). */
export function shippingOptionFor(
  m: ShippingMethods,
  level: ShippingLevel,
  country: string,
  weightGrams: number,
): string | null {
  const rule = m.rules.find(
    (r) => r.level === level && r.destinations.some((d) => covers(d, country)) && weightGrams <= r.maxWeightGrams,
  );
  return rule?.shippingOptionCode ?? null;
}
