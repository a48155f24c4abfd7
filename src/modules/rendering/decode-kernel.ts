/**
 * A stored picture decoded on a compositor thread straight into shared memory (a stage's plate). A
 * frame is up to 2000 x 2800 px, 17 MB of RGB: decoded on the event loop, libvips would hand it over
 * as a fresh buffer that counts against the main heap's external-memory limit, and copying it into
 * shared memory there holds every API request for tens of ms. Here the decoded buffer is left to the
 * thread's own collector.
 */
import sharp from 'sharp';
import { sharedCopy } from './shared-bytes.ts';

export interface DecodeJob {
  /** The picture as stored (PNG here; any format libvips reads). */
  image: Uint8Array;
  /** The size it must have: anything else is a stored file of another drawing. */
  width: number;
  height: number;
}

/** The picture as RGB in shared memory, width x height x 3 bytes. */
export async function decodeKernel(job: DecodeJob): Promise<Uint8Array> {
  const { data, info } = await sharp(job.image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== job.width || info.height !== job.height || info.channels !== 3)
    throw new Error(
      `stored picture is ${info.width}x${info.height}x${info.channels}, not ${job.width}x${job.height}x3`,
    );
  return sharedCopy(data);
}
