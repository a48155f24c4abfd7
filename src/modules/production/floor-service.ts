import type { Executor } from '../../platform/db/index.ts';
import { conflict, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { unitBatching } from './batch-units.ts';
import type { ProductionDeps } from './deps.ts';
import { DEFAULT_FLOOR_FILE, type FloorConfig, loadFloorConfig } from './floor-config.ts';
import { BATCH_DOCUMENT_KINDS, type BatchRow, floorRepo as repo } from './floor-repo.ts';
import { batchFileMaker } from './make-batch.ts';

/** Every few minutes (in every release mode but `manual`): the units awaiting a batch are batched. */
export const BATCHING_JOB = 'production.batching';
/** A batch's print file, pick list and batch sheet, made on a worker thread (the renders pool). */
export const BATCH_FILES_JOB = 'production.batch_files';
const BATCHING_EVERY_MS = 5 * 60_000;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export type FloorService = ReturnType<typeof floorService>;

/** A batch as the console and the operator API show it: its jig, files and slots. */
async function batchView(db: Executor, floor: FloorConfig, b: BatchRow) {
  const [units, docs] = await Promise.all([repo.unitsOfBatch(db, b.id), repo.documents(db, [b.id])]);
  const jig = floor.jigs.find((j) => j.id === b.jig);
  return {
    reference: b.id,
    printer: b.printer,
    jig: b.jig,
    jigName: jig?.name ?? b.jig,
    status: b.status,
    bleedMm: Number(b.bleed_mm),
    created: iso(b.created_at),
    printed: iso(b.printed_at),
    files: docs.map((d) => ({
      kind: d.kind,
      status: d.status,
      size: d.size,
      error: d.error,
      modified: iso(d.updated_at),
    })),
    slots: units.map((u) => ({
      slot: u.slot,
      unitReference: u.id,
      orderReference: u.order_id,
      orderlineIndex: u.line_index,
      unit: u.unit_no,
      attempt: u.attempt,
      state: u.state,
    })),
  };
}

/**
 * The floor: printed copies as units, batched into the slots of the printers' jigs (floor file),
 * batches marked printed at the print station.
 */
export function floorService(
  deps: Pick<ProductionDeps, 'db' | 'clock' | 'catalog' | 'config' | 'blobs' | 'images'>,
  floor: FloorConfig = loadFloorConfig(deps.config.floorConfigPath ?? DEFAULT_FLOOR_FILE),
) {
  const { db, clock } = deps;
  const manual = deps.config.productionRelease.mode === 'manual';
  const queueFiles = async (tx: Executor, batchIds: string[]) => {
    await repo.queueDocuments(tx, batchIds, clock.now());
    for (const batchId of batchIds)
      await enqueue(tx, clock, BATCH_FILES_JOB, { batchId }, { maxAttempts: 5, organizationId: null });
  };
  const batchUnits = unitBatching(deps, floor, queueFiles);

  async function batchOf(ref: string, ex: Executor = db, lock = false): Promise<BatchRow> {
    return mustFind(isReference('Batch', ref) ? await repo.batch(ex, ref, lock) : null, 'Batch', ref);
  }
  const job = (at: Date) =>
    enqueue(
      db,
      clock,
      BATCHING_JOB,
      {},
      { runAt: at, dedupeKey: `${BATCHING_JOB}:${at.toISOString()}`, maxAttempts: 3, organizationId: null },
    );
  const nextSlot = (at: Date) => new Date((Math.floor(at.getTime() / BATCHING_EVERY_MS) + 1) * BATCHING_EVERY_MS);

  const view = (b: BatchRow) => batchView(db, floor, b);

  return {
    config: floor,
    /** The batch files job's work. */
    make: batchFileMaker(deps, floor),
    async filePdf(ref: string, slug: string) {
      const b = await batchOf(ref);
      const kind = BATCH_DOCUMENT_KINDS.find((k) => k.replace('_', '-') === slug);
      const doc = kind ? (await repo.documents(db, [b.id])).find((d) => d.kind === kind) : undefined;
      const found = mustFind(doc, 'Batch file', slug);
      if (found.status !== 'ready' || !found.blob_key)
        throw conflict(
          'production_file_not_ready',
          `The ${slug.replace('-', ' ')} of ${b.id} is ${found.status}${found.error ? `: ${found.error}` : '; try again in a moment'}`,
        );
      const bytes = await deps.blobs.get(found.blob_key);
      if (!bytes) throw new Error(`blob ${found.blob_key} is missing`);
      return { bytes, filename: `${b.id}-${slug}.pdf` };
    },
    /** Makes the batch's files again (after the floor file or a product changed). */
    async remakeFiles(ref: string) {
      const b = await batchOf(ref);
      await db.tx((tx) => queueFiles(tx, [b.id]));
      return view(b);
    },
    /** Batches the units awaiting one; `flush` makes the last, partly filled batches too. */
    batchUnits,
    /** Starts the batching chain (server and worker start-up); nothing in `manual`. */
    async schedule(at = clock.now()): Promise<void> {
      if (!manual) await job(at);
    },
    /** The job: the next run is booked first, so a failing run never ends the chain. */
    async scheduled() {
      await job(nextSlot(clock.now()));
      return batchUnits({ flush: false });
    },
    async openBatches(limit = 200) {
      return Promise.all((await repo.openBatches(db, limit)).map(view));
    },
    async batch(ref: string) {
      return view(await batchOf(ref));
    },
    /**
     * The print station scanned the batch: it is printed, and so is every unit still in its slots.
     * A batch printed or canceled already is refused with what it is.
     */
    async markPrinted(ref: string) {
      const at = clock.now();
      await db.tx(async (tx) => {
        const b = await batchOf(ref, tx, true);
        if (b.status !== 'open')
          throw conflict(
            'batch_not_open',
            `Batch ${b.id} is ${b.status}${b.printed_at ? ` (${iso(b.printed_at)})` : ''}`,
          );
        const units = (await repo.unitsOfBatch(tx, b.id)).filter((u) => u.batch_id === b.id);
        await repo.move(
          tx,
          units.map((u) => u.id),
          'batched',
          'printed',
          { at, batchId: b.id },
        );
        await repo.setBatchStatus(tx, b.id, 'printed', at);
      });
      return this.batch(ref);
    },
  };
}
