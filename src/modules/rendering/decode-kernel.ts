/**
 * A stored picture decoded on a compositor thread straight into the caller's shared buffer, as raw
 * RGB. A frame-size buffer is 12-17 MB at 2000 px: decoded on the event loop and copied into shared
 * memory there, its pages are first touched by that copy, 25-55 ms in which no API request is
 * answered. Here libvips' decoded buffer lives and dies on the thread's heap, and the copy touches
 * the shared buffer's pages on the thread.
 */
import sharp from 'sharp';

export interface DecodeJob {
  /** The picture as stored (PNG here: a stage's plate). */
  encoded: Uint8Array;
  width: number;
  height: number;
  /** Shared, width x height x 3 bytes: the picture as RGB. */
  out: Uint8Array;
}

export async function decodeKernel(job: DecodeJob): Promise<void> {
  const { data, info } = await sharp(job.encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== job.width || info.height !== job.height || info.channels !== 3 || data.length !== job.out.length)
    throw new Error(
      `stored picture is ${info.width}x${info.height}x${info.channels}, not ${job.width}x${job.height}x3`,
    );
  job.out.set(data);
}
