import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { ArtworkJob } from './artwork-kernel.ts';
import type { DecodeJob } from './decode-kernel.ts';
import { toBackground } from '../../platform/background-threads.ts';
import { threadLimits } from '../../platform/memory/young-generation.ts';
import { startModuleThread } from '../../platform/threads.ts';
import type { FrontalJob, PrintAreaJob } from './kernels.ts';
import type { PhotoJob } from './photo/photo-kernel.ts';
import type { CaseJob } from './stage/case-kernel.ts';
import type { PlateJob } from './stage/plate-kernel.ts';
import type { PixelReply, PixelRequest, PixelThreadStarted } from './pixel-worker.ts';
import type { TexelsJob } from './texels.ts';
import type { WarpJob } from './warp.ts';

/**
 * The compositor's threads: every per-pixel loop of the mockups runs here, never on the event loop
 * (a 1000 px template is a million pixels; in JavaScript that is tens of ms in which no API request
 * is answered). Buffers are SharedArrayBuffer views: posting them costs nothing. The ThumbHash of a
 * render (a DCT over its 100 px picture, ~3 ms) runs here too, from the `thumbhash` package. Each
 * thread runs pixel-worker.ts.
 */
type Kind = PixelRequest['kind'];

const WORKER = new URL('./pixel-worker.ts', import.meta.url);

interface Pending {
  resolve: (result: unknown) => void;
  reject: (e: Error) => void;
  worker: Worker;
}

/** Jobs run by kind since the process started (tests: which work went to the threads). */
const ran: Record<Kind, number> = {
  artwork: 0,
  decode: 0,
  warp: 0,
  texels: 0,
  frontal: 0,
  printArea: 0,
  plate: 0,
  case: 0,
  photo: 0,
  grain: 0,
  thumbhash: 0,
  collect: 0,
};

/**
 * Jobs whose buffers are used once (a template drawn or converted, ~13 bytes a pixel: ~15 MB at
 * 1000 x 1400). A thread that ran one ends once idle: its isolate keeps every shared buffer it was
 * posted until its own full collection, which a thread that allocates next to nothing seldom makes
 * (measured: the drawing's buffers still held after any number of the event loop's collections,
 * freed when the thread ended). Renders reuse theirs, so a thread that only warps stays.
 */
const ONE_OFF: ReadonlySet<Kind> = new Set(['frontal', 'printArea', 'photo']);

interface Slot {
  w: Worker;
  busy: number;
  /** Ran a one-off job: ends when next idle. */
  retire: boolean;
  /** The thread's id in the system, once it has told it (Linux). */
  tid?: string;
}

class PixelPool {
  private workers: Slot[] = [];
  private pending = new Map<number, Pending>();
  private nextId = 1;
  constructor(private size: number) {}

  private spawn() {
    // Its garbage is a job's message and the kernels' few small arrays (memory/young-generation.ts).
    const w = startModuleThread(WORKER, threadLimits());
    const slot: Slot = { w, busy: 0, retire: false };
    w.on('message', (msg: PixelReply | PixelThreadStarted) => {
      // Below the event loop, like libvips' threads: a run of renders must not hold API requests.
      // The thread names itself (Node does not tell a worker's thread id), and only it is lowered.
      if ('tid' in msg) {
        if (msg.tid) {
          slot.tid = msg.tid;
          toBackground([msg.tid]);
        }
        return;
      }
      slot.busy--;
      if (slot.busy === 0) {
        w.unref();
        if (slot.retire) this.end(slot);
      }
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!p) return;
      if (msg.error) p.reject(threadError(msg));
      else p.resolve(msg.result);
    });
    w.on('error', (err) => {
      // A crashed worker takes its own jobs with it (only those: the other thread may still be
      // writing into its job's buffers); the next call starts a fresh one.
      this.workers = this.workers.filter((s) => s !== slot);
      for (const [id, p] of this.pending) {
        if (p.worker !== w) continue;
        p.reject(err);
        this.pending.delete(id);
      }
    });
    // Idle threads must not keep the process alive (busy ones must: a render is waiting on them).
    w.unref();
    this.workers.push(slot);
    return slot;
  }

  private end(slot: Slot): void {
    this.workers = this.workers.filter((s) => s !== slot);
    void slot.w.terminate();
  }

  /** Ends the threads with nothing to do; the next job starts a fresh one. */
  stopIdle(): void {
    for (const s of this.workers.filter((s) => s.busy === 0)) this.end(s);
  }

  /** Threads running now (tests). */
  get threads(): number {
    return this.workers.length;
  }

  /** The system ids of the threads running now that have told theirs (tests). */
  get threadIds(): string[] {
    return this.workers.flatMap((s) => (s.tid ? [s.tid] : []));
  }

  /**
   * `giveBack` names the job's buffers (plain ArrayBuffers, not shared) that are moved to the thread
   * and moved back with the reply, as the reply's result: the thread keeps nothing of such a job.
   */
  run(kind: Kind, job: unknown, giveBack?: string[]): Promise<unknown> {
    let slot = this.workers.find((s) => s.busy === 0);
    if (!slot) slot = this.workers.length < this.size ? this.spawn() : this.workers.sort((a, b) => a.busy - b.busy)[0];
    return this.post(slot, kind, job, giveBack);
  }

  /** The same job on every thread running now (none started for it). */
  everyThread(kind: Kind): Promise<unknown[]> {
    return Promise.all(this.workers.map((slot) => this.post(slot, kind, {})));
  }

  private post(target: Slot, kind: Kind, job: unknown, giveBack?: string[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: target.w });
      target.busy++;
      target.w.ref();
      try {
        const moved = (giveBack ?? []).map((name) => (job as Record<string, ArrayBufferView>)[name].buffer);
        target.w.postMessage({ id, kind, job, giveBack } satisfies PixelRequest, moved as ArrayBuffer[]);
      } catch (err) {
        // Not posted (a value that does not clone, a buffer that does not move): the slot is given
        // back as it was. Left busy, it would hold its thread referenced, and anything waiting for
        // an idle thread, for ever.
        this.pending.delete(id);
        target.busy--;
        if (target.busy === 0) target.w.unref();
        reject(err as Error);
        return;
      }
      target.retire ||= ONE_OFF.has(kind);
      ran[kind]++;
    });
  }
}

/**
 * One thread per core beyond the event loop's, at most 2: renders run one at a time and each needs
 * one thread, so a second only serves a preview composed next to a render or another preview. On a
 * 2-core node that second thread (~10 MB of isolate) would compete with the event loop and the
 * database thread for the same two cores; the preview waits a few ms for the first instead.
 */
const pool = new PixelPool(Math.max(1, Math.min(2, availableParallelism() - 1)));

/** Buffers handed to the threads must live in shared memory; this allocates them. */
export function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}
export function sharedCopy(src: Uint8Array): Uint8Array {
  const b = sharedBytes(src.length);
  b.set(src);
  return b;
}
/** A copy in a leased shared buffer (a spare of that length when there is one). */
export function leasedCopy(src: Uint8Array): Uint8Array {
  const b = leaseShared(src.length);
  b.set(src);
  return b;
}

/**
 * Spare shared buffers by length, for the per-render output and artwork. V8 frees a SharedArrayBuffer
 * only when a garbage collection finds it, and image work allocates little on the JavaScript heap, so
 * a run of renders left hundreds of MB of dead buffers (and glibc kept the memory after they went).
 * Renders repeat the same few sizes, so reuse makes that garbage nearly nothing. Bounded in bytes:
 * a 2000 px stage render leases ~16 MB (its 12 MB output and its artwork), so the cap holds one such
 * render's pair and a few 1000 px ones. Lengths are kept in the order they were last handed back,
 * and beyond the cap the longest unused go first: a node that moves on to other templates keeps
 * the sizes it renders now, not those of the first templates it saw.
 */
export const SPARE_MAX_BYTES = 32 * 1024 * 1024;
const spare = new Map<number, SharedArrayBuffer[]>();
let spareBytes = 0;

/** A shared buffer of this length with undefined contents: the caller writes all of it. */
export function leaseShared(length: number): Uint8Array {
  const list = spare.get(length);
  const buf = list?.pop();
  if (!buf) return sharedBytes(length);
  if (list!.length === 0) spare.delete(length);
  spareBytes -= length;
  return new Uint8Array(buf);
}

/** Holders of a shared buffer beyond its first (renders reading a decoded template, a store). */
const holders = new WeakMap<SharedArrayBuffer, number>();

/** One more holder of a shared buffer: the buffer goes back to the spares at its last release. */
export function retainShared(view: Uint8Array): void {
  const buf = view.buffer;
  if (buf instanceof SharedArrayBuffer) holders.set(buf, (holders.get(buf) ?? 0) + 1);
}

/**
 * Hands a leased buffer back once nothing reads it any more (no worker, no pending encode): at the
 * release of its last holder, the first of which is whoever leased or made it.
 */
export function releaseShared(view: Uint8Array): void {
  const buf = view.buffer;
  if (!(buf instanceof SharedArrayBuffer) || view.byteOffset !== 0 || view.byteLength !== buf.byteLength) return;
  const more = holders.get(buf);
  if (more) {
    if (more === 1) holders.delete(buf);
    else holders.set(buf, more - 1);
    return;
  }
  if (buf.byteLength > SPARE_MAX_BYTES) return;
  const list = spare.get(buf.byteLength) ?? [];
  if (list.includes(buf)) return;
  // (Re-)inserted: the length handed back last is the last to go.
  spare.delete(buf.byteLength);
  list.push(buf);
  spare.set(buf.byteLength, list);
  spareBytes += buf.byteLength;
  while (spareBytes > SPARE_MAX_BYTES) {
    const [length, oldest] = spare.entries().next().value!;
    oldest.shift();
    spareBytes -= length;
    if (oldest.length === 0) spare.delete(length);
  }
}

/**
 * Lets go of what renders keep between them (the spare buffers and idle threads), for a node whose
 * renders have stopped for a while.
 */
export function releaseIdleWarpMemory(): void {
  spare.clear();
  spareBytes = 0;
  pool.stopIdle();
}

/** Bytes held as spares (tests and metrics). */
export function spareSharedBytes(): number {
  return spareBytes;
}

/** The compositor's threads running now (tests). */
export function pixelThreads(): number {
  return pool.threads;
}

/** The system thread ids of the compositor's threads running now (tests: their priority). */
export function pixelThreadIds(): string[] {
  return pool.threadIds;
}

/** Jobs of each kind the threads have been given (tests). */
export function pixelJobsRun(): Readonly<Record<Kind, number>> {
  return { ...ran };
}

export const runArtwork = (job: ArtworkJob) => pool.run('artwork', job) as Promise<void>;
/** Decodes a stored picture into `out`, shared memory (decode-kernel.ts). */
export const runDecode = (job: DecodeJob) => pool.run('decode', job) as Promise<void>;
export const runWarp = (job: WarpJob) => pool.run('warp', job) as Promise<void>;
/** Pixels per unit of u and v on a decoded template's back (texels.ts). */
export const runTexels = (job: TexelsJob) => pool.run('texels', job) as Promise<[number, number]>;
export const runFrontal = (job: FrontalJob) => pool.run('frontal', job) as Promise<void>;
export const runPrintArea = (job: PrintAreaJob) => pool.run('printArea', job) as Promise<void>;

/**
 * A stage's plate (once per stage, view and size) and a stage template's case (once per model):
 * their buffers go to the thread and come back (the result), so the thread keeps nothing and stays
 * for the renders; a fresh thread costs ~0.5 s of CPU through tsx (its isolate, the kernels'
 * modules and their warm-up). The case's background alone is shared: the renderer holds it as the
 * template's decoded background, which every render posts to the threads in any case.
 */
export const runPlate = (job: PlateJob) => pool.run('plate', job, ['out']) as Promise<Pick<PlateJob, 'out'>>;
export const runCase = (job: CaseJob) =>
  pool.run('case', job, ['uv', 'layers']) as Promise<Pick<CaseJob, 'uv' | 'layers'>>;
export const runPhoto = (job: PhotoJob) => pool.run('photo', job) as Promise<void>;
/** Draws the leather grain tile (grain.ts) into `out`, shared memory, and answers it. */
export const runGrain = (out: Uint8Array) => pool.run('grain', { out }).then(() => out);

/** The ThumbHash of an RGBA picture of at most 100x100 px, computed on the threads. */
export async function thumbHashOnThreads(width: number, height: number, rgba: Uint8Array): Promise<Uint8Array> {
  return (await pool.run('thumbhash', { width, height, rgba })) as Uint8Array;
}

/** A full collection on every compositor thread running now: each lets go of its views of dead buffers. */
export const collectOnThreads = () => pool.everyThread('collect').then(() => {});

/** A thread's failure as an Error whose message is the thread's message and whose stack is the thread's. */
function threadError(msg: PixelReply): Error {
  const err = new Error(msg.error);
  if (msg.stack) err.stack = msg.stack;
  return err;
}
