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
  colour?: Colourway;
}

/**
 * A case's colourway: `hex` is the shell or leather; a part colour, when given, covers that part
 * only (a tough case's bumper sold in a colour of its own); an absent part follows `hex`.
 */
export interface Colourway {
  name: string;
  hex: string;
  /** The side wall (a tough case's bumper). */
  bezelHex?: string;
  /** The rim of the camera cut-out. */
  cameraRingHex?: string;
}

interface Coloured {
  material: { baseHex: string; bezelHex?: string; cameraRingHex?: string };
}

/** A case type in the product's colourway: the base colour and the part colours follow the product's `colour`. */
export function inColourway<T extends Coloured>(caseType: T, look: ProductLook | null): T {
  const c = look?.colour;
  if (!c?.hex) return caseType;
  const material = { ...caseType.material, baseHex: c.hex.toLowerCase() };
  if (c.bezelHex) material.bezelHex = c.bezelHex.toLowerCase();
  if (c.cameraRingHex) material.cameraRingHex = c.cameraRingHex.toLowerCase();
  return { ...caseType, material };
}
