import { startModuleThread } from '../../platform/threads.ts';
import type { BatchFilesJob } from './batch-files-thread.ts';

export interface BatchFiles {
  printFile: Buffer;
  images: Array<{ slot: string; widthPx: number; heightPx: number; dpi: number }>;
  pickList: Buffer;
  batchSheet: Buffer;
}

const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Draws a batch's files on a worker thread of its own (image resizing, PDF compression). */
export function drawBatchFiles(job: BatchFilesJob): Promise<BatchFiles> {
  return new Promise((resolve, reject) => {
    const thread = startModuleThread(new URL('./batch-files-thread.ts', import.meta.url), { workerData: job });
    let settled = false;
    thread.once('message', (m: { ok?: BatchFiles; error?: string }) => {
      settled = true;
      void thread.terminate();
      if (m.ok)
        resolve({
          ...m.ok,
          printFile: asBuffer(m.ok.printFile),
          pickList: asBuffer(m.ok.pickList),
          batchSheet: asBuffer(m.ok.batchSheet),
        });
      else reject(new Error(m.error ?? 'the batch files thread failed'));
    });
    thread.once('error', (err) => {
      if (!settled) reject(err);
    });
    thread.once('exit', (code) => {
      if (!settled) reject(new Error(`the batch files thread ended (${code}) without its files`));
    });
  });
}
