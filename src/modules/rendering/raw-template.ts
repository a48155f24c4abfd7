import { runDrawnLayers } from './pixel-threads.ts';
import type { TemplateLayers } from './template-kernel.ts';

/**
 * A template drawn on this node and handed to the renderer as drawn: its background in shared
 * memory at the frame's size (3 bytes a pixel), its UV map (16-bit, 3 samples) and layers (3 bytes)
 * for a box of the frame only. The renderer takes these into its decoded-template cache without a
 * PNG encode and decode in between: at 2000 px such a round trip holds the drawing, its three PNGs
 * and their decoded copies at once (~60-90 MB left for the collector).
 */
export interface RawTemplate {
  width: number;
  height: number;
  /** Shared memory: the renderer holds it as the template's decoded background. */
  background: Uint8Array;
  /** The drawn box: x0, y0, x1, y1 (px); outside it no mask, neutral shading, UV 0. */
  box: Int32Array;
  uv: Uint16Array;
  layers: Uint8Array;
}

export function isRawTemplate(t: object): t is RawTemplate {
  return 'box' in t && 'width' in t;
}

/** The decoded layers of a drawn template, cut to its mask's box as renderer.ts holds them. */
export type RawLayers = TemplateLayers;

/**
 * The layers a template's PNGs decode to, from the drawing itself: the mask's box found in the
 * drawn box, and the UV map's two bands cut to it, on a compositor thread (template-kernel.ts).
 */
export async function rawLayers(t: RawTemplate): Promise<RawLayers> {
  const [x0, y0, x1, y1] = t.box;
  const inner = await runDrawnLayers({ uv: t.uv, layers: t.layers, width: x1 - x0, height: y1 - y0 });
  return { ...inner, box: { ...inner.box, left: inner.box.left + x0, top: inner.box.top + y0 } };
}
