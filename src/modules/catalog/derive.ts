import type { Static } from 'typebox';
import { badRequest } from '../../platform/errors.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import type { DeviceGeometry } from './devices.ts';
import { layerImages, printSpecFor } from './geometry.ts';
import { stageOn } from './lifecycle.ts';
import { refuseGivenPrint } from './print-spec.ts';
import type { PrintSpec } from './repo.ts';
import type { ImportDocument, ProductStatus } from './schemas.ts';

type Doc = Static<typeof ImportDocument>;
type ProductIn = NonNullable<Doc['products']>[number];

/** What a product's device gives it when the file leaves it out. */
export interface Derived {
  /** undefined: the file says nothing about the device. */
  deviceKey?: string | null;
  print?: PrintSpec | null;
  layers?: ProductIn['layers'];
  /** The stage on the catalog date, used when the file gives no status. */
  stage?: ProductStatus;
  /** Layers still being drawn (internal). */
  draw?: string;
}

/**
 * Fills in, for products that name a device, what follows from its geometry: the print area of the
 * productgroup's case type, the print-area and cut-line layers, the lifecycle stage on the catalog
 * date. What the file gives itself wins. Runs before the transaction (drawing is CPU work).
 */
export async function deriveFromDevices(
  doc: Doc,
  lookup: {
    /** Devices of the file and those already stored, by key. */
    devices: Map<string, DeviceGeometry>;
    /** The case type of a productgroup by code or reference (file first, then stored). */
    caseType: (group: string) => Promise<string | null>;
  },
  today: Date,
): Promise<Derived[]> {
  const catalogDate = doc.catalogDate ? new Date(`${doc.catalogDate}T00:00:00Z`) : today;
  const drawn = new Map<string, Promise<Record<string, Buffer>>>();
  const caseTypes = new Map<string, Promise<string | null>>();
  const caseTypeOf = (group: string) => {
    if (!caseTypes.has(group)) caseTypes.set(group, lookup.caseType(group));
    return caseTypes.get(group)!;
  };
  const out: Derived[] = [];
  for (const [i, p] of (doc.products ?? []).entries()) {
    const where = `body.products[${i}]`;
    if (p.device === undefined || p.device === null) {
      if (p.status === undefined)
        throw badRequest(`${where}.status is required for a product without a device (its stage cannot be derived)`);
      out.push({ deviceKey: p.device });
      continue;
    }
    const device = lookup.devices.get(p.device);
    if (!device)
      throw badRequest(
        `${where}.device ${p.device} is not in the device table (add it under devices)`,
        'unknown_device',
      );
    const d: Derived = { deviceKey: device.key, stage: stageOn(device.releaseDate, catalogDate) };
    const caseType = await caseTypeOf(p.productgroup);
    if (p.printable && isCaseType(caseType)) {
      const ct = CASE_TYPES[caseType];
      refuseGivenPrint(p.print, true, where);
      const status = p.status ?? d.stage;
      // A preliminary geometry is not printed from: the spec waits until the device is out of announced.
      const withheld = device.preliminary === true && status === 'announced';
      if (p.print === undefined) d.print = withheld ? null : printSpecFor(device, ct);
      // Archived products are no longer made: no print files, so no layers are drawn for them.
      if (p.layers === undefined && !withheld && status !== 'archived') {
        const key = `${device.key}/${ct.key}`;
        if (!drawn.has(key)) drawn.set(key, layerImages(device, ct));
        d.draw = key;
      }
    }
    out.push(d);
  }
  // Drawn side by side (sharp works off the event loop), then handed out.
  await Promise.all(drawn.values());
  for (const d of out) {
    if (!d.draw) continue;
    const images = await drawn.get(d.draw)!;
    d.layers = Object.entries(images).map(([name, bytes]) => ({ name, file: { base64: bytes.toString('base64') } }));
    delete d.draw;
  }
  return out;
}
