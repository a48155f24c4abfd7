/**
 * A compositor thread (pixel-threads.ts is the event loop's side): runs the per-pixel loops of the
 * mockups and the ThumbHash of a render on the shared buffers it is posted, one message in, one
 * reply out.
 */
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { collectNow } from '../../platform/memory/collect.ts';
import { type ArtworkJob, artworkKernel } from './artwork-kernel.ts';
import { type DecodeJob, decodeKernel } from './decode-kernel.ts';
import { drawGrain } from './grain.ts';
import { type FrontalJob, type PrintAreaJob, frontalKernel, printAreaKernel } from './kernels.ts';
import { type PhotoJob, photoKernel } from './photo/photo-kernel.ts';
import { type CaseJob, caseKernel } from './stage/case-kernel.ts';
import { type PlateJob, plateKernel } from './stage/plate-kernel.ts';
import { type TexelsJob, texelsKernel } from './texels.ts';
import { type WarpJob, warpKernel } from './warp.ts';

export interface PixelRequest {
  id: number;
  kind:
    | 'artwork'
    | 'decode'
    | 'warp'
    | 'texels'
    | 'frontal'
    | 'printArea'
    | 'plate'
    | 'case'
    | 'photo'
    | 'grain'
    | 'thumbhash'
    | 'collect';
  job: unknown;
  /** Buffers of the job moved here, moved back as the result (pixel-threads.ts). */
  giveBack?: string[];
}

export interface PixelReply {
  id: number;
  result?: unknown;
  error?: string;
  /** The thread's stack for the error, for logs: a failure's reason as users see it is the message alone. */
  stack?: string;
}

export interface ThumbHashJob {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** The thread's first message: its id in the system (Linux; null elsewhere), to lower its priority. */
export interface PixelThreadStarted {
  tid: string | null;
}

const port = parentPort;
if (!port) throw new Error('pixel-worker.ts runs only as a worker thread');

/** This thread's id, from `/proc/thread-self` (a link to `<pid>/task/<tid>`). */
function ownThreadId(): string | null {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop() ?? null;
  } catch {
    return null;
  }
}
port.postMessage({ tid: ownThreadId() } satisfies PixelThreadStarted);

/** Loaded on the first ThumbHash: a thread that only warps never needs it. */
let thumbhash: typeof import('thumbhash') | undefined;

async function run(msg: PixelRequest): Promise<unknown> {
  switch (msg.kind) {
    case 'artwork':
      return artworkKernel(msg.job as ArtworkJob);
    case 'decode':
      return decodeKernel(msg.job as DecodeJob);
    case 'warp':
      return warpKernel(msg.job as WarpJob);
    case 'texels':
      return texelsKernel(msg.job as TexelsJob);
    case 'frontal':
      return frontalKernel(msg.job as FrontalJob);
    case 'printArea':
      return printAreaKernel(msg.job as PrintAreaJob);
    case 'plate':
      return plateKernel(msg.job as PlateJob);
    case 'case':
      return caseKernel(msg.job as CaseJob);
    case 'photo':
      return photoKernel(msg.job as PhotoJob);
    case 'grain':
      return drawGrain((msg.job as { out: Uint8Array }).out);
    case 'thumbhash': {
      const job = msg.job as ThumbHashJob;
      thumbhash ??= await import('thumbhash');
      return thumbhash.rgbaToThumbHash(job.width, job.height, job.rgba);
    }
    case 'collect':
      // This isolate's views of buffers the event loop has let go (dead-buffers.ts).
      return collectNow();
    default:
      throw new Error(`unknown pixel job ${(msg as { kind: string }).kind}`);
  }
}

/** The job's moved buffers, to move back: this isolate then holds none of them. */
function movedBack(msg: PixelRequest): { result: Record<string, ArrayBufferView>; buffers: ArrayBuffer[] } | null {
  if (!msg.giveBack) return null;
  const job = msg.job as Record<string, ArrayBufferView>;
  const result = Object.fromEntries(msg.giveBack.map((name) => [name, job[name]]));
  return { result, buffers: Object.values(result).map((v) => v.buffer as ArrayBuffer) };
}

/** Every job is answered: a reply that cannot be posted is answered with why (else its caller waits for ever). */
function reply(r: PixelReply, moved: ArrayBuffer[] = []): void {
  try {
    port!.postMessage(r, moved);
  } catch (err) {
    port!.postMessage({
      id: r.id,
      error: `the reply could not be posted: ${(err as Error).message}`,
    } satisfies PixelReply);
  }
}

port.on('message', (msg: PixelRequest) => {
  run(msg).then(
    (result) => {
      const back = movedBack(msg);
      if (back) reply({ id: msg.id, result: back.result }, back.buffers);
      else reply({ id: msg.id, result });
    },
    (err: unknown) =>
      reply(
        { id: msg.id, error: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack },
        movedBack(msg)?.buffers ?? [],
      ),
  );
});
