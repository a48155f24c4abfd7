/**
 * What a product's `look` may say about its pictures: a leaf of the catalog, so that the schemas
 * that validate it and the picture makers that draw it both stand on it, not on each other.
 */
export const ACCESSORY_KINDS = [
  'screen-protector',
  'wall-charger',
  'wireless-charger',
  'crossbody-strap',
  'wrist-strap',
] as const;
export type AccessoryKind = (typeof ACCESSORY_KINDS)[number];

/** What a product's `look` may say about its pictures (the rest follows from device and case type). */
export interface ProductLook {
  accessory?: AccessoryKind;
  /** The phone colour a case is shown on, or the accessory's colour. */
  colorHex?: string;
  /** The case's own colour (shell, leather): a colourway of a case type is a product of its own. */
  colour?: { name: string; hex: string };
}

/** A case type in the product's colourway: the base colour follows the product's `colour`. */
export function inColourway<T extends { material: { baseHex: string } }>(caseType: T, look: ProductLook | null): T {
  const hex = look?.colour?.hex;
  return hex ? { ...caseType, material: { ...caseType.material, baseHex: hex.toLowerCase() } } : caseType;
}
