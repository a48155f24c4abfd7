import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

/**
 * What an upload takes: a file path (string or file: URL), bytes (Buffer, Uint8Array, ArrayBuffer,
 * Blob), or a stream (web ReadableStream, Node Readable or any async iterable of bytes). Paths and
 * bytes can be re-sent, so their uploads are retried after a 429, 5xx or dropped connection; a
 * stream is sent once. (Typed without Node's own types, so the SDK needs no @types/node.)
 */
export type UploadSource =
  | string
  | URL
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

export interface PreparedBody {
  /** A fresh body for one attempt. */
  body(): BodyInit;
  /** Whether a second attempt can send the same bytes again. */
  replayable: boolean;
  /** fetch needs `duplex: 'half'` to send a stream. */
  stream: boolean;
}

const isWebStream = (v: unknown): v is ReadableStream<Uint8Array> =>
  typeof v === 'object' && v !== null && typeof (v as ReadableStream).getReader === 'function';
const isAsyncIterable = (v: unknown): v is AsyncIterable<Uint8Array> =>
  typeof v === 'object' && v !== null && typeof (v as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function';

export async function prepareUpload(source: UploadSource): Promise<PreparedBody> {
  if (typeof source === 'string' || source instanceof URL) {
    // A Blob backed by the file: streamed by fetch, and re-readable for a retry. stat first for
    // a clear ENOENT/EISDIR instead of openAsBlob's generic message.
    const info = await stat(source);
    if (!info.isFile()) throw new TypeError(`upload source ${String(source)} is not a file`);
    const blob = await openAsBlob(source);
    return { body: () => blob, replayable: true, stream: false };
  }
  if (source instanceof Blob) return { body: () => source, replayable: true, stream: false };
  if (source instanceof ArrayBuffer) return { body: () => new Uint8Array(source), replayable: true, stream: false };
  if (source instanceof Uint8Array)
    return { body: () => source as Uint8Array<ArrayBuffer>, replayable: true, stream: false };
  if (isWebStream(source)) return { body: once(source), replayable: false, stream: true };
  if (isAsyncIterable(source)) {
    // A Node Readable is one; Readable.from also takes generators of Buffers or Uint8Arrays.
    const web = Readable.toWeb(Readable.from(source)) as unknown as ReadableStream<Uint8Array>;
    return { body: once(web), replayable: false, stream: true };
  }
  throw new TypeError('upload source must be a file path, a Buffer/Uint8Array/ArrayBuffer/Blob, or a readable stream');
}

function once(stream: ReadableStream<Uint8Array>): () => BodyInit {
  let used = false;
  return () => {
    if (used) throw new TypeError('a stream upload cannot be sent twice');
    used = true;
    return stream as BodyInit;
  };
}

/** A label for progress reports: the path for files, `#<index>` for anything else. */
export function describeSource(source: UploadSource, index: number): string {
  if (typeof source === 'string') return source;
  if (source instanceof URL) return source.href;
  return `#${index}`;
}
