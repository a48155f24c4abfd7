import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest } from '../../platform/errors.ts';
import type { UnitState } from './floor-repo.ts';
import { type ScannedUnit, stationsRepo as repo } from './stations-repo.ts';
import { parseUnitScan } from './unit-code.ts';

/** Where a case is, in the words a station uses when it refuses it. */
export const WHERE: Record<UnitState, string> = {
  awaiting_batch: 'is not printed yet: it waits for a batch',
  batched: 'is not printed yet: its batch is on the way to the printer',
  printed: 'has not been through QC',
  qc_passed: 'passed QC already: take it to packing',
  qc_failed: 'failed QC and is being made again',
  packed: 'is packed already',
  canceled: 'was canceled: put it aside',
};

/** A refused scan: the station shows the message in large type and sounds its alarm. */
export const refuse = (message: string) => new ApiError('scan_refused', message);

/** The scanned case, locked, in an order in production; a code that is no case is a 400. */
export async function scanned(tx: Executor, raw: string): Promise<ScannedUnit> {
  const id = parseUnitScan(raw);
  if (!id) throw badRequest(`“${raw.trim().slice(0, 60)}” is not a case’s code (Unit_…)`);
  const u = await repo.unit(tx, id, true);
  if (!u) throw refuse(`No case ${id} on the floor`);
  if (u.order_status !== 'in_production' && u.state !== 'canceled')
    throw refuse(`${id} belongs to ${u.order_id}, which is ${u.order_status.replace('_', ' ')}`);
  return u;
}
