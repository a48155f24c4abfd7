/**
 * A stored picture decoded on a compositor thread straight into the caller's shared buffer, as raw
 * RGB. A frame-size buffer is 12-17 MB at 2000 px: decoded on the event loop and copied into shared
 * memory there, its pages are first touched by that copy, 25-55 ms in which no API request is
 * answered. An 8-bit RGB PNG (a stage's plate, as the service writes it) is inflated in 64 KB
 * chunks and unfiltered row by row into the buffer: nothing frame-size is allocated beside it, so a
 * render that decodes its plate into its output leaves no 12 MB for the thread's collector. Any
 * other picture goes through libvips, whose decoded buffer lives and dies on the thread's heap.
 */
import { once } from 'node:events';
import { createInflate } from 'node:zlib';
import sharp from 'sharp';
import type { MaskBox } from './warp.ts';

export interface DecodeJob {
  /** The picture as stored (PNG here: a stage's plate). */
  encoded: Uint8Array;
  width: number;
  height: number;
  /** Shared, width x height x 3 bytes: the picture as RGB. */
  out: Uint8Array;
  /** RGB pixels laid over the picture in `box` once decoded (what a stage's case drew on its plate). */
  patch?: { box: MaskBox; pixels: Uint8Array };
}

export async function decodeKernel(job: DecodeJob): Promise<void> {
  if (isPlainRgbPng(job.encoded, job.width, job.height)) await inflatePng(job.encoded, job.out, job.width, job.height);
  else await decodeWithLibvips(job);
  if (job.patch) paste(job.out, job.width, job.patch.box, job.patch.pixels);
}

async function decodeWithLibvips(job: DecodeJob): Promise<void> {
  const { data, info } = await sharp(job.encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== job.width || info.height !== job.height || info.channels !== 3 || data.length !== job.out.length)
    throw new Error(
      `stored picture is ${info.width}x${info.height}x${info.channels}, not ${job.width}x${job.height}x3`,
    );
  job.out.set(data);
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/** A PNG of this size, 8 bits a sample, RGB, not interlaced (its header, the first chunk). */
function isPlainRgbPng(png: Uint8Array, width: number, height: number): boolean {
  if (png.length < 33 || SIGNATURE.some((b, i) => png[i] !== b)) return false;
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const ihdr = String.fromCharCode(png[12], png[13], png[14], png[15]);
  return (
    ihdr === 'IHDR' &&
    v.getUint32(16) === width &&
    v.getUint32(20) === height &&
    png[24] === 8 &&
    png[25] === 2 &&
    png[28] === 0
  );
}

/** Inflates the PNG's image data and unfilters each row into `out` as it arrives. */
async function inflatePng(png: Uint8Array, out: Uint8Array, width: number, height: number): Promise<void> {
  const stride = width * 3;
  const row = new Uint8Array(stride + 1);
  let filled = 0;
  let y = 0;
  const inflate = createInflate({ chunkSize: 64 * 1024 });
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  const fed = (async () => {
    for (let at = 8; at + 12 <= bytes.length; ) {
      const length = bytes.readUInt32BE(at);
      const type = bytes.toString('latin1', at + 4, at + 8);
      if (type === 'IEND') break;
      if (type === 'IDAT' && !inflate.write(bytes.subarray(at + 8, at + 8 + length))) await once(inflate, 'drain');
      at += 12 + length;
    }
    inflate.end();
  })();
  // A stream that fails ends the loop below with its error; the feeding then fails with it too.
  fed.catch(() => {});
  for await (const chunk of inflate as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length && y < height; ) {
      const take = Math.min(stride + 1 - filled, chunk.length - i);
      row.set(chunk.subarray(i, i + take), filled);
      filled += take;
      i += take;
      if (filled > stride) {
        unfilter(row, out, y * stride, stride, y > 0);
        y++;
        filled = 0;
      }
    }
  }
  await fed;
  if (y !== height) throw new Error(`stored picture ends after ${y} of ${height} rows`);
}

/** One row's PNG filter undone (filter byte first), 3 bytes a pixel, into `out` at `at`. */
function unfilter(row: Uint8Array, out: Uint8Array, at: number, stride: number, hasUp: boolean): void {
  const filter = row[0];
  const up = at - stride;
  if (filter === 0) {
    out.set(row.subarray(1), at);
    return;
  }
  for (let x = 0; x < stride; x++) {
    const a = x >= 3 ? out[at + x - 3] : 0;
    const b = hasUp ? out[up + x] : 0;
    let p: number;
    if (filter === 1) p = a;
    else if (filter === 2) p = b;
    else if (filter === 3) p = (a + b) >> 1;
    else if (filter === 4) {
      const c = hasUp && x >= 3 ? out[up + x - 3] : 0;
      const pa = Math.abs(b - c);
      const pb = Math.abs(a - c);
      const pc = Math.abs(a + b - 2 * c);
      p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    } else throw new Error(`stored picture has a row of unknown filter ${filter}`);
    out[at + x] = (row[1 + x] + p) & 255;
  }
}

/** `pixels` (the box's RGB rows) laid into the frame `out`, `width` px wide. */
function paste(out: Uint8Array, width: number, box: MaskBox, pixels: Uint8Array): void {
  const span = box.width * 3;
  for (let y = 0; y < box.height; y++)
    out.set(pixels.subarray(y * span, (y + 1) * span), ((box.top + y) * width + box.left) * 3);
}
