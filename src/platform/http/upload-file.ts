import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { randomId } from '../ids.ts';

/**
 * An upload body written to a temporary file as it arrived, with its SHA-256 and size computed on
 * the way: a 50 MB upload costs the process a few socket chunks of memory, not 50 MB. The file and
 * every path taken with `derivedPath` are removed by `remove()` (the upload route calls it once the
 * handler is done, or when the request ends without reaching it).
 */
export class UploadedFile {
  private readonly paths: string[];

  constructor(
    readonly path: string,
    readonly size: number,
    /** Hex SHA-256 of the whole body. */
    readonly sha256: string,
  ) {
    this.paths = [path];
  }

  /** A path beside the body for a file made from it (a downsized copy), removed with the body. */
  derivedPath(suffix: string): string {
    const p = `${this.path}.${suffix}`;
    this.paths.push(p);
    return p;
  }

  /**
   * Idempotent; a path already moved into the blob store is simply not there any more. Never
   * rejects (it also runs unawaited when a connection closes): a file that cannot be removed now is
   * swept as stale by a later process.
   */
  async remove(): Promise<void> {
    await Promise.all(this.paths.map((p) => rm(p, { force: true }).catch(() => {})));
  }

  /** What logs and the request log show of it: never the path or the bytes. */
  toJSON(): string {
    return `[${this.size} bytes]`;
  }
}

/** Older than any upload can be (they time out long before): left by a process that was killed. */
const STALE_MS = 60 * 60 * 1000;
const SUFFIX = '.upload';
const prepared = new Map<string, Promise<void>>();

/**
 * Creates the folder of temporary upload files once per process, removing the stale files of an
 * earlier process (a crash or a kill mid-upload) on the way.
 */
export function prepareUploadDir(dir: string): Promise<void> {
  let p = prepared.get(dir);
  if (!p) {
    p = (async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const cutoff = Date.now() - STALE_MS;
      for (const name of await readdir(dir)) {
        if (!name.includes(SUFFIX)) continue;
        const path = join(dir, name);
        const st = await stat(path).catch(() => null);
        if (st && st.mtimeMs < cutoff) await rm(path, { force: true });
      }
    })();
    p.catch(() => prepared.delete(dir));
    prepared.set(dir, p);
  }
  return p;
}

/** Chunks of a body handled before other I/O gets a turn (~0.1 ms each for the hash). */
const YIELD_EVERY_CHUNKS = 4;

/**
 * Writes `payload` to a new file in `dir`, hashing it on the way, and gives up with `tooLarge()` at
 * the first byte past `limit`. The sender is paused while the disk catches up. On any failure (too
 * large, the client gone, a write error) the file is removed before `done` is called.
 */
export function receiveToFile(
  payload: Readable,
  opts: { dir: string; limit: number; tooLarge: () => Error },
  done: (err: Error | null, file?: UploadedFile) => void,
): void {
  const path = join(opts.dir, `${randomId(16)}${SUFFIX}`);
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const hash = createHash('sha256');
  let received = 0;
  let sinceYield = 0;
  let finished = false;
  // The sender is paused for either reason and resumed only when neither holds.
  let draining = false;
  let yielding = false;
  const resume = () => {
    if (!finished && !draining && !yielding) payload.resume();
  };

  const fail = (err: Error) => {
    if (finished) return;
    finished = true;
    detach();
    payload.pause();
    out.destroy();
    // Removed once the stream has let go of the file, so nothing recreates or keeps it.
    const removeThenReport = () => rm(path, { force: true }).then(() => done(err), done);
    if (out.closed) void removeThenReport();
    else out.once('close', removeThenReport);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > opts.limit) return fail(opts.tooLarge());
    hash.update(chunk);
    if (!out.write(chunk)) {
      draining = true;
      payload.pause();
      out.once('drain', () => {
        draining = false;
        resume();
      });
    }
    // A fast sender fills the socket faster than it is hashed: without a pause, up to 32 chunks are
    // handled in one go while other requests (and their database answers) wait.
    if (++sinceYield === YIELD_EVERY_CHUNKS) {
      sinceYield = 0;
      yielding = true;
      payload.pause();
      setImmediate(() => {
        yielding = false;
        resume();
      });
    }
  };
  const onEnd = () => {
    if (finished) return;
    detach();
    // 'finish' only when every byte is written; a write error goes to `fail` instead.
    out.once('finish', () => {
      if (finished) return;
      finished = true;
      done(null, new UploadedFile(path, received, hash.digest('hex')));
    });
    out.end();
  };
  const interrupted = () =>
    fail(new ApiError('invalid_request', 'The upload was interrupted before the body was complete'));
  // 'close' before 'end': the client went away without an error event (seen on some Node versions).
  const onClose = () => {
    if (!payload.readableEnded) interrupted();
  };
  const onWriteError = (err: Error) => fail(err);
  function detach() {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', interrupted);
    payload.removeListener('close', onClose);
  }
  out.on('error', onWriteError);
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', interrupted);
  payload.on('close', onClose);
  // A stream that failed before it was handed over (a multipart parser gave up on a truncated body
  // while the part waited in its queue) emits nothing more.
  if (payload.destroyed) onClose();
}
