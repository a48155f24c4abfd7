import sharp, { type Sharp } from 'sharp';

/**
 * The fit rule: where a partner's artwork lies on a case. One rule for the print files and every
 * mockup (straight-on shots, 3D stages, photo scenes), so a mockup shows exactly the
 * part of the artwork that is printed, at the same place.
 */

/** Beyond this aspect mismatch between artwork and print area the artwork is fitted whole (contain). */
export const COVER_MAX_MISMATCH = 2;
/** Artwork with a shorter edge than this is enlarged with nearest-neighbour (crisp, not mush). */
export const TINY_EDGE = 64;

/**
 * What the artwork is fitted to: the print area and its bleed, the artwork the print file carries
 * beyond the print area on every side (0 for a clear shell, whose rim stays clear).
 */
export interface PrintFit {
  widthMm: number;
  heightMm: number;
  bleedMm: number;
  /** The print area's corner radius (a mockup leaves what lies beyond the area and its bleed unprinted). */
  cornerRadiusMm?: number;
}

/** The artwork's box in mm from the print area's top-left corner; a covering box reaches beyond it. */
export interface ArtworkBox {
  xMm: number;
  yMm: number;
  widthMm: number;
  heightMm: number;
  fit: 'cover' | 'contain';
  kernel: 'nearest' | 'lanczos3';
}

/**
 * The artwork **covers** the print area with its bleed (scaled to fill it, centred on the print
 * area, the rest cropped), so the rounded edge shows the artwork's own continuation. When its aspect
 * differs from the print area's by more than COVER_MAX_MISMATCH (a banner on a phone back) it is
 * fitted **whole** into the print area instead, centred; the rest shows the case material.
 */
export function artworkBox(art: { width: number; height: number }, f: PrintFit): ArtworkBox {
  const areaAspect = f.widthMm / f.heightMm;
  const artAspect = art.width / art.height;
  const contain = Math.max(artAspect / areaAspect, areaAspect / artAspect) > COVER_MAX_MISMATCH;
  const scale = contain
    ? Math.min(f.widthMm / art.width, f.heightMm / art.height)
    : Math.max((f.widthMm + 2 * f.bleedMm) / art.width, (f.heightMm + 2 * f.bleedMm) / art.height);
  const widthMm = art.width * scale;
  const heightMm = art.height * scale;
  return {
    xMm: (f.widthMm - widthMm) / 2,
    yMm: (f.heightMm - heightMm) / 2,
    widthMm,
    heightMm,
    fit: contain ? 'contain' : 'cover',
    kernel: Math.min(art.width, art.height) < TINY_EDGE ? 'nearest' : 'lanczos3',
  };
}

export type ArtworkOnRaster = ArtworkBox & { widthPx: number; heightPx: number; leftPx: number; topPx: number };

/**
 * The artwork placed on a raster of `pxPerMm` whose origin is `originMm` from the print area's
 * top-left (negative: the raster starts in the bleed): the resized artwork's size and its offset on
 * the raster in whole pixels. Print files and mockups both place the artwork through this.
 */
export function artworkOnRaster(
  art: { width: number; height: number },
  f: PrintFit,
  pxPerMm: [number, number],
  originMm: [number, number],
): ArtworkOnRaster {
  const box = artworkBox(art, f);
  return {
    ...box,
    widthPx: Math.max(1, Math.round(box.widthMm * pxPerMm[0])),
    heightPx: Math.max(1, Math.round(box.heightMm * pxPerMm[1])),
    leftPx: Math.round((box.xMm - originMm[0]) * pxPerMm[0]),
    topPx: Math.round((box.yMm - originMm[1]) * pxPerMm[1]),
  };
}

/**
 * Resizes the artwork (already turned upright) as the layout says and cuts or pads it to the
 * raster. Past a covering artwork's edge (a rounding sliver, or a print file's bleed wider than the
 * fit's) its edge pixels continue; around a whole-fitted one, transparency.
 */
export async function placeArtwork(
  img: Sharp,
  l: { width: number; height: number; art: ArtworkOnRaster },
): Promise<Sharp> {
  const a = l.art;
  const x0 = Math.max(0, a.leftPx);
  const y0 = Math.max(0, a.topPx);
  const x1 = Math.min(l.width, a.leftPx + a.widthPx);
  const y1 = Math.min(l.height, a.topPx + a.heightPx);
  const resized = img.resize(a.widthPx, a.heightPx, { fit: 'fill', kernel: a.kernel });
  // Nothing of the artwork on the raster: one transparent pixel, padded.
  const none = x1 <= x0 || y1 <= y0;
  const cut = none
    ? resized.extract({ left: 0, top: 0, width: 1, height: 1 }).ensureAlpha(0)
    : resized.extract({ left: x0 - a.leftPx, top: y0 - a.topPx, width: x1 - x0, height: y1 - y0 });
  const pad = none
    ? { left: 0, top: 0, right: l.width - 1, bottom: l.height - 1 }
    : { left: x0, top: y0, right: l.width - x1, bottom: l.height - y1 };
  if (!pad.left && !pad.top && !pad.right && !pad.bottom) return cut;
  // libvips extends before a resize's later cut in one pipeline: the cut is made first, apart.
  const { data, info } = await cut.raw().toBuffer({ resolveWithObject: true });
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).extend({
    ...pad,
    extendWith: a.fit === 'cover' && !none ? 'copy' : 'background',
    background: { r: 0, g: 0, b: 0, alpha: 0 },
  });
}
