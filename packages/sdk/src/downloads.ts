import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What `toNodeStream()` returns: a Node Readable, described without Node's types. */
export interface NodeReadableLike extends AsyncIterable<Uint8Array> {
  pipe<T extends { write(chunk: any): unknown; end(): unknown }>(destination: T, options?: { end?: boolean }): T;
  on(event: string, listener: (...args: any[]) => void): this;
}

/** A binary answer (render media, thumbnails, product media), not yet read. */
export class Download {
  constructor(private readonly response: Response) {}

  get status(): number {
    return this.response.status;
  }
  get headers(): Headers {
    return this.response.headers;
  }
  get contentType(): string | null {
    return this.response.headers.get('content-type');
  }
  /** Bytes announced by `Content-Length`, when the server sent it. */
  get size(): number | null {
    const v = this.response.headers.get('content-length');
    return v === null ? null : Number(v);
  }

  /** The body as a web stream; read it once. */
  get body(): ReadableStream<Uint8Array> {
    if (!this.response.body) return new ReadableStream({ start: (c) => c.close() });
    return this.response.body;
  }

  /**
   * The body as a Node `Readable` (e.g. to pipe into a file or an HTTP response). Typed by what it
   * offers, so the SDK needs no @types/node; cast it to `Readable` when you want Node's full type.
   */
  toNodeStream(): NodeReadableLike {
    return Readable.fromWeb(this.body as never) as unknown as NodeReadableLike;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.response.arrayBuffer();
  }

  /** The whole body in memory (a Node Buffer, typed as the Uint8Array it is). */
  async buffer(): Promise<Uint8Array> {
    return Buffer.from(await this.response.arrayBuffer());
  }

  /** Streams the body into a file. */
  async saveTo(path: string): Promise<void> {
    await pipeline(this.toNodeStream(), createWriteStream(path));
  }

  /** Releases the connection without reading the body. */
  async discard(): Promise<void> {
    await this.response.body?.cancel().catch(() => {});
  }
}
