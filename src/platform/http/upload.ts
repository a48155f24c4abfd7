import type { FastifyInstance, FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
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
  new ApiError(413, 'payload_too_large', `The upload is larger than the limit of ${formatBytes(limit)} (${limit} bytes)`, undefined, { connection: 'close' });

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Collects the body up to the route's `bodyLimit` and gives up (413) at the first byte past it. */
function readLimited(request: FastifyRequest, payload: Readable, done: (err: Error | null, body?: Buffer) => void): void {
  const limit = request.routeOptions.bodyLimit ?? 0;
  const chunks: Buffer[] = [];
  let received = 0;
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
    received += chunk.length;
    if (received > limit) {
      payload.pause();
      finish(tooLarge(limit));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => finish(null, Buffer.concat(chunks, received));
  const onError = () => finish(new ApiError(400, 'invalid_request', 'The upload was interrupted before the body was complete'));
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}

/** Registers the octet-stream body parser in `scope` (once). */
export function acceptRawUploads(scope: FastifyInstance): void {
  if (scope.hasContentTypeParser(RAW_UPLOAD_TYPE)) return;
  scope.addContentTypeParser(RAW_UPLOAD_TYPE, (request, payload, done) => readLimited(request, payload as Readable, done as never));
}

/** The body is a Buffer, not JSON: only the other parts go through the schema validator. */
const skipBodyValidation: FastifySchemaCompiler<any> = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));

export interface RawUploadRoute<T> {
  url: string;
  limitBytes: number;
  /** Plural noun for messages, e.g. "Images". */
  noun: string;
  bucket: 'uploads';
  schema: Omit<FastifySchema, 'body'> & { operationId: string; tags: string[]; summary: string; response: Record<number, TSchema> };
  handler: (request: FastifyRequest, bytes: Buffer) => Promise<T>;
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
      config: { bucket: route.bucket },
      validatorCompiler: skipBodyValidation,
      schema: {
        ...route.schema,
        description: `${route.schema.description ?? ''}\n\nBody: the raw file bytes, \`Content-Type: ${RAW_UPLOAD_TYPE}\`, at most ${formatBytes(limit)}.`.trim(),
        consumes: [RAW_UPLOAD_TYPE],
        body: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: `Raw file bytes, at most ${limit} bytes` }),
      } as FastifySchema,
      // Runs after authentication and rate limiting, before the body is read.
      onRequest: async (request) => {
        const type = mediaType(request.headers['content-type']);
        if (type !== RAW_UPLOAD_TYPE) {
          const got = type ? `, not ${type}` : '; the Content-Type header is missing';
          throw new ApiError(415, 'unsupported_media_type', `${route.noun} are uploaded as raw bytes with Content-Type: ${RAW_UPLOAD_TYPE}${got}`);
        }
        const declared = request.headers['content-length'];
        if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
      },
    },
    async (request) => route.handler(request, request.body as Buffer),
  );
}
