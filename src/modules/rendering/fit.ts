/** How the artwork meets the case back: the fit rule, and the leather grain texture. */
import sharp from 'sharp';
import { sharedCopy } from './pixel-threads.ts';

/** Largest output edge and largest artwork texture edge. */
export const MAX_EDGE = 2000;
/** Beyond this aspect mismatch between artwork and case back the artwork is fitted whole (contain). */
export const COVER_MAX_MISMATCH = 2;
/** Artwork with a shorter edge than this is enlarged with nearest-neighbour (crisp, not mush). */
export const TINY_EDGE = 64;

let grainTexture: Promise<Uint8Array> | undefined;
/** Leather grain: blurred noise, tiled over the back by the kernel. */
export function grain(): Promise<Uint8Array> {
  grainTexture ??= sharp({
    create: {
      width: 256,
      height: 256,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian' as const, mean: 160, sigma: 45 },
    },
  })
    .blur(0.9)
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer()
    .then((b) => sharedCopy(b));
  return grainTexture;
}

/**
 * The fit rule (docs/rendering.md): the artwork covers the case back (centre crop) unless its
 * aspect differs from the back's by more than COVER_MAX_MISMATCH, then it is fitted whole and the
 * rest of the back shows the case material; transparency shows the material too. Tiny artwork is
 * enlarged with nearest-neighbour so an icon stays crisp.
 */
export function artworkFit(
  art: { width: number; height: number },
  backMm: [number, number],
  longEdge: number,
): { width: number; height: number; fit: 'cover' | 'contain'; kernel: 'nearest' | 'lanczos3' } {
  const backAspect = backMm[0] / backMm[1];
  const artAspect = art.width / art.height;
  const mismatch = Math.max(artAspect / backAspect, backAspect / artAspect);
  const edge = Math.max(16, Math.min(MAX_EDGE, Math.round(longEdge)));
  const width = backAspect >= 1 ? edge : Math.max(1, Math.round(edge * backAspect));
  const height = backAspect >= 1 ? Math.max(1, Math.round(edge / backAspect)) : edge;
  return {
    width,
    height,
    fit: mismatch > COVER_MAX_MISMATCH ? 'contain' : 'cover',
    kernel: Math.min(art.width, art.height) < TINY_EDGE ? 'nearest' : 'lanczos3',
  };
}
