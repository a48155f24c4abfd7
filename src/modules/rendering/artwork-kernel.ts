/**
 * A render's artwork fitted to its template's texture, on a compositor thread. The fitted artwork is
 * ~4 MB of RGBA at 1000 px (16 MB at 2000) that libvips hands out as a fresh buffer. Such a buffer on
 * the event loop counts against the main heap's external-memory limit, so a run of renders would set
 * off a full collection of that heap every second or so, each a pause of every API request. Here the
 * buffer lives on the thread's own heap: it is copied into the render's leased shared buffer and left
 * to that heap's collector.
 */
import sharp from 'sharp';
import { type ArtworkOnRaster, placeArtwork } from '../catalog/artwork-fit.ts';

export interface ArtworkJob {
  /** The partner's image as stored (any format libvips reads here). */
  image: Uint8Array;
  /** The texture's size and where the artwork lies on it (fit.ts, artworkLayout). */
  width: number;
  height: number;
  art: ArtworkOnRaster;
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
}
