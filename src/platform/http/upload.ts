import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { MemoryBudget } from '../memory-budget.ts';
import type { Access } from './auth.ts';
import { type TSchema, Type } from './schemas.ts';
import { validatorCompiler } from './validation.ts';

/**
 * Routes that take a raw file as the body (image and evidence uploads). The octet-stream parser is
 * registered only in the encapsulated scope that declares such routes, so every JSON endpoint
 * elsewhere keeps answering `415` to octet-stream.
 */

export const RAW_UPLOAD_TYPE = 'application/octet-stream';

export function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  if (n >= MB && n % MB === 0) return `${n / MB} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} bytes`;
}

/** The socket is closed after this answer: the rest of the body is never read. */
const tooLarge = (limit: number) =>
  new ApiError('payload_too_large', `The upload is larger than the limit of ${formatBytes(limit)} (${limit} bytes)`, {
    headers: { connection: 'close' },
  });

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Upload bodies are held whole in memory until answered; together they stay within
 * `UPLOAD_MEMORY_MB` (default 64: one upload at the 50 MB limit, or many
 * ordinary ones). A body that does not fit is not read until enough was answered: its sender
 * waits (TCP back-pressure) instead of the process growing by 50 MB per concurrent upload.
 */
export const uploadMemory = new MemoryBudget(64 * 1024 * 1024);

/** Chunks of a body handled before other I/O gets a turn (~0.1 ms each). */
const YIELD_EVERY_CHUNKS = 4;
/** SHA-256 (hex) of each raw body, computed chunk by chunk while it arrived. */
const bodyDigests = new WeakMap<FastifyRequest, string>();

/**
 * Collects the body up to the route's `bodyLimit` and gives up (413) at the first byte past it.
 * With a Content-Length the body is copied into one buffer of that size and hashed chunk by chunk
 * as it arrives (~0.1 ms per 64 KB chunk). Joining and hashing a 34 MB image at the end held the
 * event loop for about half a second under load: both copy it into fresh memory in one go. A
 * chunked body (no Content-Length) is still joined at the end.
 */
function readLimited(
  request: FastifyRequest,
  payload: Readable,
  done: (err: Error | null, body?: Buffer) => void,
): void {
  const limit = request.routeOptions.bodyLimit ?? 0;
  const declared = Number(request.headers['content-length']);
  let whole = Number.isSafeInteger(declared) && declared > 0 && declared <= limit ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  let received = 0;
  let sinceYield = 0;
  let finished = false;
  const finish = (err: Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(err, body);
  };
  const onData = (chunk: Buffer) => {
    const at = received;
    received += chunk.length;
    if (received > limit) {
      payload.pause();
      finish(tooLarge(limit));
      return;
    }
    hash.update(chunk);
    if (whole && received > whole.length) {
      // More than declared (Node's parser does not let this happen): fall back to collecting chunks.
      chunks.push(whole.subarray(0, at));
      whole = null;
    }
    if (whole) chunk.copy(whole, at);
    else chunks.push(chunk);
    // A fast sender fills the socket faster than it is hashed: without a pause, up to 32 chunks are
    // handled in one go while other requests (and their database answers) wait.
    if (++sinceYield === YIELD_EVERY_CHUNKS) {
      sinceYield = 0;
      payload.pause();
      setImmediate(() => {
        if (!finished) payload.resume();
      });
    }
  };
  const onEnd = () => {
    bodyDigests.set(request, hash.digest('hex'));
    // Only the bytes received: never uninitialised memory of the preallocated buffer.
    finish(null, whole ? whole.subarray(0, received) : Buffer.concat(chunks, received));
  };
  const onError = () =>
    finish(new ApiError('invalid_request', 'The upload was interrupted before the body was complete'));
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}

/** Registers the octet-stream body parser in `scope` (once). */
export function acceptRawUploads(scope: FastifyInstance): void {
  if (scope.hasContentTypeParser(RAW_UPLOAD_TYPE)) return;
  scope.addContentTypeParser(RAW_UPLOAD_TYPE, (request, payload, done) =>
    readLimited(request, payload as Readable, done as never),
  );
}

/** The body is a Buffer, not JSON: only the other parts go through the schema validator. */
const skipBodyValidation: FastifySchemaCompiler<any> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

export interface RawUploadRoute<T> {
  url: string;
  limitBytes: number;
  /** Plural noun for messages, e.g. "Images". */
  noun: string;
  /** Who may upload (an upload writes: `write`). */
  access: Access;
  bucket: 'uploads';
  schema: Omit<FastifySchema, 'body'> & {
    operationId: string;
    tags: string[];
    summary: string;
    response: Record<number, TSchema>;
  };
  /** `upload.sha256`: the hex SHA-256 of `bytes`, computed while they arrived. */
  handler: (request: FastifyRequest, bytes: Buffer, upload: { sha256: string }) => Promise<T>;
}

/**
 * Declares `POST <url>` taking raw bytes: `415 unsupported_media_type` for any other Content-Type,
 * `413 payload_too_large` from Content-Length before a byte is read, or while streaming (chunked).
 * The route draws from the `default` and the named bucket.
 */
export function postRawUpload<T>(scope: FastifyInstance, route: RawUploadRoute<T>): void {
  acceptRawUploads(scope);
  const limit = route.limitBytes;
  scope.post(
    route.url,
    {
      bodyLimit: limit,
      config: { access: route.access, bucket: route.bucket },
      validatorCompiler: skipBodyValidation,
      schema: {
        ...route.schema,
        description:
          `${route.schema.description ?? ''}\n\nBody: the raw file bytes, \`Content-Type: ${RAW_UPLOAD_TYPE}\`, at most ${formatBytes(limit)}.`.trim(),
        consumes: [RAW_UPLOAD_TYPE],
        body: Type.Unsafe<Buffer>({
          type: 'string',
          format: 'binary',
          description: `Raw file bytes, at most ${limit} bytes`,
        }),
      } as FastifySchema,
      // Runs after authentication and rate limiting, before the body is read.
      onRequest: async (request, reply) => {
        const type = mediaType(request.headers['content-type']);
        if (type !== RAW_UPLOAD_TYPE) {
          const got = type ? `, not ${type}` : '; the Content-Type header is missing';
          throw new ApiError(
            'unsupported_media_type',
            `${route.noun} are uploaded as raw bytes with Content-Type: ${RAW_UPLOAD_TYPE}${got}`,
          );
        }
        const declared = request.headers['content-length'];
        if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
        // A chunked body may grow to the limit: it reserves that much.
        const size = Number(declared);
        const release = await uploadMemory.acquire(
          Number.isSafeInteger(size) && size >= 0 ? size : limit,
          request.principal?.organizationId ?? null,
        );
        // Given back once the answer is sent or the connection is gone, whichever comes first.
        reply.raw.once('close', release);
        if (request.raw.destroyed) release();
      },
    },
    async (request) => {
      const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return route.handler(request, bytes, {
        sha256: bodyDigests.get(request) ?? createHash('sha256').update(bytes).digest('hex'),
      });
    },
  );
}
