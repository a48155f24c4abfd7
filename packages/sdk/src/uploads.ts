import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

/**
 * What an upload takes: a file path (string or file: URL), bytes (Buffer, Uint8Array, ArrayBuffer,
 * Blob), or a stream (web ReadableStream or Node Readable). Paths and bytes can be re-sent, so
 * their uploads are retried after a 429, 5xx or dropped connection; a stream is sent once.
 */
export type UploadSource =
  | string
  | URL
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | NodeJS.ReadableStream;

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
const isNodeStream = (v: unknown): v is NodeJS.ReadableStream =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as NodeJS.ReadableStream).pipe === 'function' &&
  typeof (v as NodeJS.ReadableStream).on === 'function';

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
  if (isNodeStream(source)) {
    const web = Readable.toWeb(source as Readable) as unknown as ReadableStream<Uint8Array>;
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
