import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Static, Strict, Type } from '../../platform/http/schemas.ts';
import { schemaErrors } from '../../platform/http/validation.ts';
import { CASE_TYPE_KEYS } from '../catalog/casetypes.ts';

/** The floor file shipped with the service: a UV flatbed with a 12-slot phone jig and a large-phone jig. */
export const DEFAULT_FLOOR_FILE = join(import.meta.dirname, '..', '..', '..', 'config', 'floor.json');

const Mm = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 5000, description });

const Slot = Strict({
  id: Type.String({ minLength: 1, maxLength: 20, description: 'Printed on the pick list and the batch sheet' }),
  xMm: Type.Number({ minimum: 0, description: "Left edge of the pocket from the bed's left edge" }),
  yMm: Type.Number({ minimum: 0, description: "Top edge of the pocket from the bed's top edge" }),
  widthMm: Mm('Pocket width across the bed'),
  heightMm: Mm('Pocket height down the bed'),
  rotation: Type.Union([Type.Literal(0), Type.Literal(90), Type.Literal(180), Type.Literal(270)], {
    description: "Clockwise turn of the case in the pocket: 0 = the case's top toward the bed's top edge",
  }),
});

const Jig = Strict({
  id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' }),
  name: Type.String({ minLength: 1, maxLength: 80 }),
  printer: Type.String({ minLength: 1 }),
  caseTypes: Type.Array(Type.Union(CASE_TYPE_KEYS.map((k) => Type.Literal(k))), { minItems: 1 }),
  models: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 60 }), {
      description:
        'Device keys that fit (a trailing * matches a prefix); all models whose case fits a pocket when absent',
    }),
  ),
  slackMm: Type.Number({
    minimum: 0,
    maximum: 50,
    description: 'How much smaller than a pocket a case may be and still sit fixed in it (shims take up the play)',
  }),
  slots: Type.Array(Slot, { minItems: 1, maxItems: 200 }),
});

const Printer = Strict({
  id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' }),
  name: Type.String({ minLength: 1, maxLength: 80 }),
  bedWidthMm: Mm('Printable bed width'),
  bedHeightMm: Mm('Printable bed depth'),
});

const Bin = Strict({
  sku: Type.String({ minLength: 1, description: 'A blank SKU, or a pattern with * for any run of characters' }),
  bin: Type.String({ minLength: 1, maxLength: 40 }),
});

export const FloorFile = Strict({
  bleedMm: Type.Number({ minimum: 0, maximum: 10, description: 'Artwork beyond the cut line' }),
  /** A batch that is not full is made once its oldest unit has waited this long. */
  partialBatchAfterMinutes: Type.Integer({ minimum: 0, maximum: 7 * 24 * 60 }),
  printers: Type.Array(Printer, { minItems: 1 }),
  jigs: Type.Array(Jig, { minItems: 1 }),
  bins: Type.Array(Bin),
});

export type FloorConfig = Static<typeof FloorFile>;
export type JigConfig = FloorConfig['jigs'][number];
export type SlotConfig = JigConfig['slots'][number];
export type PrinterConfig = FloorConfig['printers'][number];

export class FloorConfigError extends Error {}

/** The rules the schema cannot say: names that refer to each other, pockets on the bed and apart. */
function consistent(c: FloorConfig, where: string): FloorConfig {
  const fail = (m: string) => {
    throw new FloorConfigError(`${where}: ${m}`);
  };
  const printers = new Map(c.printers.map((p) => [p.id, p]));
  if (printers.size !== c.printers.length) fail('two printers have the same id');
  if (new Set(c.jigs.map((j) => j.id)).size !== c.jigs.length) fail('two jigs have the same id');
  for (const j of c.jigs) {
    const p = printers.get(j.printer) ?? fail(`jig ${j.id} names printer "${j.printer}", which is not listed`);
    if (new Set(j.slots.map((s) => s.id)).size !== j.slots.length) fail(`jig ${j.id} has two slots with the same id`);
    for (const s of j.slots) {
      if (s.xMm + s.widthMm > p.bedWidthMm || s.yMm + s.heightMm > p.bedHeightMm)
        fail(`slot ${s.id} of jig ${j.id} reaches beyond the bed of ${p.id} (${p.bedWidthMm} × ${p.bedHeightMm} mm)`);
      // Each slot's bleed must not print onto its neighbour's case.
      const gap = 2 * c.bleedMm;
      for (const o of j.slots)
        if (
          o !== s &&
          s.xMm < o.xMm + o.widthMm + gap &&
          o.xMm < s.xMm + s.widthMm + gap &&
          s.yMm < o.yMm + o.heightMm + gap &&
          o.yMm < s.yMm + s.heightMm + gap
        )
          fail(`slots ${s.id} and ${o.id} of jig ${j.id} overlap or are closer than twice the bleed`);
    }
  }
  return c;
}

/** Reads and checks a floor file; a mistake names the file and what is wrong with it. */
export function loadFloorConfig(path = DEFAULT_FLOOR_FILE): FloorConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new FloorConfigError(`${path}: ${(err as Error).message}`);
  }
  return parseFloorConfig(raw, path);
}

export function parseFloorConfig(raw: unknown, where = 'floor configuration'): FloorConfig {
  const [e] = schemaErrors(FloorFile, raw);
  if (e) throw new FloorConfigError(`${where}: ${e.instancePath || '/'} ${e.message}`);
  return consistent(raw as FloorConfig, where);
}

/** True when a device key matches one of the patterns (exact, or a prefix before a trailing *). */
export function matchesAny(value: string, patterns: string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? value.startsWith(p.slice(0, -1)) : value === p));
}

/** The bin a blank is picked from, by the first rule whose SKU pattern matches; null when none does. */
export function binOf(c: FloorConfig, sku: string): string | null {
  for (const b of c.bins) {
    const re = new RegExp(
      `^${b.sku
        .split('*')
        .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    if (re.test(sku)) return b.bin;
  }
  return null;
}
