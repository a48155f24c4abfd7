import { parentPort, workerData } from 'node:worker_threads';
import { type BedCase, buildBatchPrintFile } from './batch-print-file.ts';
import { type BatchSheetInput, buildBatchSheet, buildPickList } from './batch-sheets.ts';
import type { PrinterConfig } from './floor-config.ts';

/** What the thread is given: everything read from the database and the blob store already. */
export interface BatchFilesJob {
  printer: PrinterConfig;
  cases: BedCase[];
  bleedMm: number;
  sheet: BatchSheetInput;
  at: Date;
}

const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** A batch's three PDFs, drawn on this thread so the event loop of the server never waits for them. */
async function run(job: BatchFilesJob) {
  const cases = job.cases.map((c) => ({ ...c, artwork: asBuffer(c.artwork) }));
  const print = await buildBatchPrintFile({
    printer: job.printer,
    cases,
    bleedMm: job.bleedMm,
    title: `Print file ${job.sheet.reference}`,
    at: job.at,
  });
  const [pickList, batchSheet] = await Promise.all([
    buildPickList(job.sheet, job.at),
    buildBatchSheet(job.sheet, job.at),
  ]);
  return { printFile: print.pdf, images: print.images, pickList, batchSheet };
}

if (parentPort && workerData) {
  run(workerData as BatchFilesJob).then(
    (out) => parentPort!.postMessage({ ok: out }),
    (err: Error) => parentPort!.postMessage({ error: String(err?.stack ?? err) }),
  );
}
