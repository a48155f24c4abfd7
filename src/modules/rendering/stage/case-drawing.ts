/** A stage template's case drawn on a compositor thread (pixel-worker.ts), buffers and all. */
import { type RawLayers, rawLayers } from '../raw-template.ts';
import { sharedCopy } from '../shared-bytes.ts';
import { type CaseJob, caseKernel } from './case-kernel.ts';

/** A case to draw on a plate: the kernel's job without the buffers the thread makes for it. */
export type CaseRequest = Omit<CaseJob, 'background' | 'uv' | 'layers'> & {
  /** The stage's plate, shared and only read: other cases of the stage are drawn on it too. */
  plate: Uint8Array;
};

/** A case drawn on its plate: the drawing and the layers the renderer holds of it (raw-template.ts). */
export interface DrawnCase {
  background: Uint8Array;
  uv: Uint16Array;
  layers: Uint8Array;
  cut: RawLayers;
}

/**
 * Draws a case on a copy of its plate and cuts the layers the renderer holds to the mask's box.
 * Every buffer is made here, so the event loop never allocates, fills or copies one: the background
 * and the cut layers in shared memory (the renderer holds them as the template's decoded layers),
 * the drawing's UV map and layers as plain buffers that move to the event loop with the answer
 * (they are stored as PNGs), leaving this thread nothing of them.
 */
export async function drawCase(req: CaseRequest): Promise<DrawnCase> {
  const { width, height, box } = req;
  const n = (box[2] - box[0]) * (box[3] - box[1]);
  const drawing = {
    ...req,
    background: sharedCopy(req.plate),
    uv: new Uint16Array(n * 3),
    layers: new Uint8Array(n * 3),
  };
  caseKernel(drawing);
  const { background, uv, layers } = drawing;
  return { background, uv, layers, cut: await rawLayers({ width, height, background, box, uv, layers }) };
}
