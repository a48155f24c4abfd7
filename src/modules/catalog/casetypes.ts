/**
 * Case types a productgroup may sell. The geometry (print area, layers) follows from the device and
 * the wall a case type adds around it; the material tells the picture makers how the case looks.
 */
export interface CaseType {
  key: CaseTypeKey;
  /** "iPhone 15 Clear Case" */
  label: string;
  /** Shell thickness around the phone's back outline, mm. */
  wallMm: number;
  /** Print resolution of the back. */
  dpi: number;
  material: {
    /** How the back looks: the phone shows through `clear`; `leather` has grain. */
    finish: 'clear' | 'matte' | 'gloss' | 'leather';
    /** Base colour of the shell where no artwork covers it. */
    baseHex: string;
    /** The side wall's colour (a tough case's bumper) when it differs from `baseHex`. */
    bezelHex?: string;
    /** The camera cut-out's rim colour when it differs from `baseHex`. */
    cameraRingHex?: string;
    /** 0 (opaque) to 1: how much of the phone's colour shows through. */
    transparency: number;
    /** A MagSafe magnet ring printed under the artwork. */
    magsafeRing: boolean;
    /** A book cover: the artwork is on the flap's outside. */
    book: boolean;
  };
  weightGrams: number;
}

export const CASE_TYPE_KEYS = ['clear', 'tough', 'magsafe', 'leather', 'wallet'] as const;
export type CaseTypeKey = (typeof CASE_TYPE_KEYS)[number];

export const CASE_TYPES: Record<CaseTypeKey, CaseType> = {
  clear: {
    key: 'clear',
    label: 'Clear Case',
    wallMm: 1.2,
    dpi: 600,
    material: { finish: 'clear', baseHex: '#f4f8fb', transparency: 0.85, magsafeRing: false, book: false },
    weightGrams: 32,
  },
  tough: {
    key: 'tough',
    label: 'Tough Case',
    wallMm: 2.4,
    dpi: 600,
    material: { finish: 'matte', baseHex: '#2b2d31', transparency: 0, magsafeRing: false, book: false },
    weightGrams: 48,
  },
  magsafe: {
    key: 'magsafe',
    label: 'MagSafe Case',
    wallMm: 1.6,
    dpi: 600,
    material: { finish: 'gloss', baseHex: '#f7f7f7', transparency: 0.6, magsafeRing: true, book: false },
    weightGrams: 44,
  },
  leather: {
    key: 'leather',
    label: 'Leather Case',
    wallMm: 1.4,
    dpi: 300,
    material: { finish: 'leather', baseHex: '#8a5a3b', transparency: 0, magsafeRing: false, book: false },
    weightGrams: 52,
  },
  wallet: {
    key: 'wallet',
    label: 'Wallet Case',
    wallMm: 2.0,
    dpi: 300,
    material: { finish: 'matte', baseHex: '#3a3f47', transparency: 0, magsafeRing: false, book: true },
    weightGrams: 95,
  },
};

export const isCaseType = (k: string | null | undefined): k is CaseTypeKey =>
  typeof k === 'string' && (CASE_TYPE_KEYS as readonly string[]).includes(k);
