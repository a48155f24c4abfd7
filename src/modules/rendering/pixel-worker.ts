/**
 * A compositor thread (pixel-threads.ts is the event loop's side): runs the per-pixel loops of the
 * mockups, the decodes whose pixels they need (a render's artwork, a stage's stored plate) and the
 * ThumbHash of a render, on the shared buffers it is posted or makes, one message in, one reply out.
 */
import { parentPort } from 'node:worker_threads';
import { type ArtworkJob, artworkKernel } from './artwork-kernel.ts';
import { type DecodeJob, decodeKernel } from './decode-kernel.ts';
import { type TemplateJob, templateKernel } from './template-kernel.ts';
import { drawGrain } from './grain.ts';
import {
  type DrawingRequest,
  type FrontalJob,
  type PrintAreaJob,
  drawLayers,
  frontalKernel,
  printAreaKernel,
} from './kernels.ts';
import { type PhotoJob, photoKernel } from './photo/photo-kernel.ts';
import { type CaseRequest, drawCase } from './stage/case-drawing.ts';
import { type PlateRequest, drawPlate } from './stage/plate-kernel.ts';
import { type WarpJob, warpKernel } from './warp.ts';

export interface PixelRequest {
  id: number;
  kind:
    | 'artwork'
    | 'warp'
    | 'frontal'
    | 'printArea'
    | 'plate'
    | 'case'
    | 'decode'
    | 'template'
    | 'photo'
    | 'grain'
    | 'thumbhash';
  job: unknown;
}

export interface PixelReply {
  id: number;
  result?: unknown;
  error?: string;
}

export interface ThumbHashJob {
  width: number;
  height: number;
  rgba: Uint8Array;
}

const port = parentPort;
if (!port) throw new Error('pixel-worker.ts runs only as a worker thread');

/** Loaded on the first ThumbHash: a thread that only warps never needs it. */
let thumbhash: typeof import('thumbhash') | undefined;

/** A job's result and the plain buffers in it that move to the event loop with the reply. */
interface Answer {
  result: unknown;
  moved?: ArrayBuffer[];
}

async function run(msg: PixelRequest): Promise<Answer> {
  if (msg.kind === 'case') {
    const drawn = await drawCase(msg.job as CaseRequest);
    return { result: drawn, moved: [drawn.uv.buffer as ArrayBuffer, drawn.layers.buffer as ArrayBuffer] };
  }
  return { result: await kernel(msg) };
}

async function kernel(msg: PixelRequest): Promise<unknown> {
  switch (msg.kind) {
    case 'artwork':
      return artworkKernel(msg.job as ArtworkJob);
    case 'warp':
      return warpKernel(msg.job as WarpJob);
    case 'frontal':
      return drawLayers(msg.job as DrawingRequest<FrontalJob>, frontalKernel);
    case 'printArea':
      return drawLayers(msg.job as DrawingRequest<PrintAreaJob>, printAreaKernel);
    case 'plate':
      return drawPlate(msg.job as PlateRequest);
    case 'decode':
      return decodeKernel(msg.job as DecodeJob);
    case 'template':
      return templateKernel(msg.job as TemplateJob);
    case 'photo':
      return photoKernel(msg.job as PhotoJob);
    case 'grain':
      return drawGrain((msg.job as { out: Uint8Array }).out);
    case 'thumbhash': {
      const job = msg.job as ThumbHashJob;
      thumbhash ??= await import('thumbhash');
      return thumbhash.rgbaToThumbHash(job.width, job.height, job.rgba);
    }
    default:
      throw new Error(`unknown pixel job ${(msg as { kind: string }).kind}`);
  }
}

/** Every job is answered: a reply that cannot be posted is answered with why (else its caller waits forever). */
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
    ({ result, moved }) => reply({ id: msg.id, result }, moved),
    (err: unknown) => reply({ id: msg.id, error: String((err instanceof Error && err.stack) || err) }),
  );
});
