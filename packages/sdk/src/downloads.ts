import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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

  /** The body as a Node stream (e.g. to pipe into a file or an HTTP response). */
  toNodeStream(): Readable {
    return Readable.fromWeb(this.body as never);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.response.arrayBuffer();
  }

  async buffer(): Promise<Buffer> {
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
