/** How the artwork meets a template: the fit rule on its texture, and the leather grain texture. */
import { type ArtworkOnRaster, type PrintFit, artworkOnRaster } from '../catalog/artwork-fit.ts';
import type { PrintedBox } from './artwork-kernel.ts';
import { GRAIN_BYTES } from './grain.ts';
import { runGrain, sharedBytes } from './pixel-threads.ts';

/** Largest output edge and largest artwork texture edge. */
export const MAX_EDGE = 2000;
export { COVER_MAX_MISMATCH, TINY_EDGE, placeArtwork } from '../catalog/artwork-fit.ts';

let grainTexture: Promise<Uint8Array> | undefined;
/** The leather grain tile and its mipmap (grain.ts), drawn once a process on the compositor's threads. */
export function grain(): Promise<Uint8Array> {
  grainTexture ??= runGrain(sharedBytes(GRAIN_BYTES)).catch((err: unknown) => {
    // A thread that failed is no grain: the next render asks again.
    grainTexture = undefined;
    throw err;
  });
  return grainTexture;
}

/** The artwork's texture: the template's UV extent at the output's long edge, and the artwork on it. */
export interface ArtworkLayout {
  width: number;
  height: number;
  art: ArtworkOnRaster & { printed?: PrintedBox };
}

/**
 * The long edge of a template's texture: as many texels across and down as the back spans pixels in
 * the frame (`texels`, texels.ts), never more than the frame's long edge. A template with no back in
 * its frame gets the frame's long edge.
 */
export function textureEdge(texels: [number, number], backMm: [number, number], longEdge: number): number {
  const [perU, perV] = texels;
  if (perU <= 0 || perV <= 0) return longEdge;
  const aspect = backMm[0] / backMm[1];
  // The texture's long side is its width when the back is wider than tall (artworkLayout).
  const need = aspect >= 1 ? Math.max(perU, perV * aspect) : Math.max(perV, perU / aspect);
  return Math.min(longEdge, Math.ceil(need));
}

/**
 * The fit rule (catalog/artwork-fit.ts) on a template's texture. The UV map spans `backMm`, centred
 * on the print area: the case's outline (straight-on shots, photo scenes; a clear case's print area
 * lies inside it, short of the rim) or the outline and the bleed (3D stages). `fit` is the product's print area and bleed; a template without one (an
 * operator's import) fits the artwork to `backMm` itself.
 */
export function artworkLayout(
  art: { width: number; height: number },
  t: { backMm: [number, number]; fit?: PrintFit },
  longEdge: number,
): ArtworkLayout {
  const [ew, eh] = t.backMm;
  const fit = t.fit ?? { widthMm: ew, heightMm: eh, bleedMm: 0 };
  const aspect = ew / eh;
  const edge = Math.max(16, Math.min(MAX_EDGE, Math.round(longEdge)));
  const width = aspect >= 1 ? edge : Math.max(1, Math.round(edge * aspect));
  const height = aspect >= 1 ? Math.max(1, Math.round(edge / aspect)) : edge;
  const origin: [number, number] = [(fit.widthMm - ew) / 2, (fit.heightMm - eh) / 2];
  const scale: [number, number] = [width / ew, height / eh];
  const placed = artworkOnRaster(art, fit, scale, origin);
  const printed = printedBox(fit, [ew, eh], scale);
  return { width, height, art: printed ? { ...placed, printed } : placed };
}

/**
 * The printed box on the texture when the texture reaches beyond the print area and its bleed by
 * more than a pixel (a clear shell on a template spanning its outline); otherwise none, and the
 * texture is the placed artwork as the print file carries it.
 */
function printedBox(fit: PrintFit, [ew, eh]: [number, number], [sx, sy]: [number, number]): PrintedBox | undefined {
  const pw = fit.widthMm + 2 * fit.bleedMm;
  const ph = fit.heightMm + 2 * fit.bleedMm;
  const radius = (fit.cornerRadiusMm ?? 0) + fit.bleedMm;
  if ((ew - pw) * sx <= 1 && (eh - ph) * sy <= 1) return undefined;
  return {
    left: ((ew - pw) / 2) * sx,
    top: ((eh - ph) / 2) * sy,
    width: pw * sx,
    height: ph * sy,
    radius: radius * Math.min(sx, sy),
  };
}
