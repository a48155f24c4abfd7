import sharp from 'sharp';
import { sharedBytes } from './pixel-threads.ts';
import type { MaskBox } from './warp.ts';

/*
 * A decoded template keeps its UV map and layers only for the box around its mask (renderer.ts):
 * outside the mask a render shows the background. Finding and cutting the box are row operations,
 * so the event loop never loops over pixels here.
 */

/**
 * The smallest box holding every masked pixel (the layers' first band above 0). Not a loop over
 * pixels on the event loop: libvips splits out the mask, and turned a quarter for the columns, and
 * each row is compared with zeros by memcmp; a row and a column of the box are found from each end.
 */
export async function maskBox(layers: Buffer, width: number, height: number): Promise<MaskBox> {
  const mask = () => sharp(layers, { raw: { width, height, channels: 3 } }).extractChannel(0);
  // Turned clockwise, column x of the frame is row x.
  const [rows, columns] = await Promise.all([mask().raw().toBuffer(), mask().rotate(90).raw().toBuffer()]);
  const y = rowsInUse(rows, width, height);
  const x = rowsInUse(columns, height, width);
  if (!y || !x) return { left: 0, top: 0, width: 0, height: 0 };
  return { left: x[0], top: y[0], width: x[1] - x[0] + 1, height: y[1] - y[0] + 1 };
}

/** The first and last row of `count` rows `length` bytes long with a byte other than 0. */
function rowsInUse(buf: Buffer, length: number, count: number): [number, number] | null {
  const zeros = Buffer.alloc(length);
  const empty = (r: number) => buf.compare(zeros, 0, length, r * length, (r + 1) * length) === 0;
  let first = 0;
  while (first < count && empty(first)) first++;
  if (first === count) return null;
  let last = count - 1;
  while (empty(last)) last--;
  return [first, last];
}

/** The rows of `box` out of a picture `width` wide, into shared memory. */
export function cutBox(src: Uint8Array, width: number, box: MaskBox, channels: number): Uint8Array {
  const out = sharedBytes(box.width * box.height * channels);
  const span = box.width * channels;
  for (let y = 0; y < box.height; y++) {
    const from = ((box.top + y) * width + box.left) * channels;
    out.set(src.subarray(from, from + span), y * span);
  }
  return out;
}
