import { badRequest } from '../../platform/errors.ts';
import { CASE_TYPES, type CaseType, isCaseType } from './casetypes.ts';
import type { DeviceGeometry } from './devices.ts';
import { printSpecFor } from './geometry.ts';
import type { PrintSpec } from './repo.ts';

/** What decides a product's print area: its stored spec, its device's geometry and its group's case type. */
export interface PrintSource {
  print_spec: PrintSpec | null;
  device_geometry: DeviceGeometry | null;
  case_type: string | null;
}

/** The device and case type a product's print area is drawn from; null for a product without them. */
export function drawnShape(p: Pick<PrintSource, 'device_geometry' | 'case_type'>) {
  return p.device_geometry && isCaseType(p.case_type)
    ? { device: p.device_geometry, caseType: CASE_TYPES[p.case_type] as CaseType }
    : null;
}

/**
 * The print area a product is printed with and answers: for a case with a device, the one its
 * geometry and case type give (as print files, batch files and mockups take it), whatever was stored
 * at import; the stored spec for every other product. Null while it has none (a non-print product,
 * or one whose preliminary geometry is not printed from yet).
 */
export function printSpecOf(p: PrintSource): PrintSpec | null {
  if (!p.print_spec) return null;
  const drawn = drawnShape(p);
  return drawn ? printSpecFor(drawn.device, drawn.caseType) : p.print_spec;
}

/**
 * A print spec given for a case whose device and case type give the print area is refused: print
 * files and mockups are drawn from the geometry, so a spec of its own would show one thing and
 * print another. `null` (no spec yet) is accepted.
 */
export function refuseGivenPrint(print: PrintSpec | null | undefined, hasGeometry: boolean, where: string): void {
  if (print && hasGeometry)
    throw badRequest(
      `${where}.print: a case with a device and case type takes its print area from their geometry; leave print out`,
      'print_spec_from_geometry',
    );
}
