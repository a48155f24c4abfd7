/**
 * A render's artwork fitted to its template's texture, on a compositor thread. The fitted artwork is
 * ~1 MB of RGBA for a 1000 px stage (3-5 MB at 2000 px; the texture is sized by the back's density
 * in the frame, fit.ts) that libvips hands out as a fresh buffer. Such a buffer on
 * the event loop counts against the main heap's external-memory limit, so a run of renders would set
 * off a full collection of that heap every second or so, each a pause of every API request. Here the
 * buffer lives on the thread's own heap: it is copied into the render's leased shared buffer and left
 * to that heap's collector.
 */
import sharp from 'sharp';
import { type ArtworkOnRaster, placeArtwork } from '../catalog/artwork-fit.ts';

/**
 * What of a texture is printed, in its pixels: the print area and its bleed, a rounded rectangle.
 * Beyond it (a clear shell's rim, on a template whose UV map spans the case's outline) the texture
 * is transparent, so the case shows its own material there, the phone through a clear shell.
 */
export interface PrintedBox {
  left: number;
  top: number;
  width: number;
  height: number;
  radius: number;
}

export interface ArtworkJob {
  /** The partner's image as stored (any format libvips reads here). */
  image: Uint8Array;
  /** The texture's size and where the artwork lies on it (fit.ts, artworkLayout). */
  width: number;
  height: number;
  art: ArtworkOnRaster & { printed?: PrintedBox };
  /** Shared, width x height x 4 bytes: the fitted artwork as RGBA. */
  out: Uint8Array;
}

export async function artworkKernel(job: ArtworkJob): Promise<void> {
  const img = sharp(job.image).rotate().toColourspace('srgb').ensureAlpha();
  const placed = await placeArtwork(img, job);
  const { data, info } = await placed.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.width !== job.width || info.height !== job.height || data.length !== job.out.length)
    throw new Error(
      `fitted artwork is ${info.width}x${info.height}x${info.channels}, not ${job.width}x${job.height}x4`,
    );
  job.out.set(data);
  if (job.art.printed) unprintBeyond(job.out, job.width, job.height, job.art.printed);
}

/**
 * Clears the texture's alpha beyond the printed box (a rounded rectangle, antialiased over a pixel):
 * what the cover fit placed there (the artwork's edge pixels continued, or its cropped part) is not
 * printed, so the template shows the case's material.
 */
function unprintBeyond(out: Uint8Array, width: number, height: number, b: PrintedBox): void {
  const hw = b.width / 2;
  const hh = b.height / 2;
  const cx = b.left + hw;
  const cy = b.top + hh;
  const r = Math.min(b.radius, hw, hh);
  // Rows along the straight sides: only the pixels within a pixel of the sides are looked at.
  const inLeft = Math.max(0, Math.floor(cx - hw + 1));
  const inRight = Math.min(width, Math.ceil(cx + hw - 1));
  for (let y = 0; y < height; y++) {
    const qy = Math.abs(y + 0.5 - cy) - (hh - r);
    const straight = qy <= -r - 1;
    for (let x = 0; x < width; x++) {
      if (straight && x === inLeft && inRight > inLeft) x = inRight;
      const qx = Math.abs(x + 0.5 - cx) - (hw - r);
      // Signed distance to the rounded rectangle, in pixels (negative inside).
      const d = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
      if (d <= -0.5) continue;
      const a = (y * width + x) * 4 + 3;
      out[a] = d >= 0.5 ? 0 : Math.round(out[a] * (0.5 - d));
    }
  }
}
