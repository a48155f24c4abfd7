import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, FastifySchemaCompiler } from 'fastify';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { MemoryBudget } from '../memory/budget.ts';
import type { Access } from './auth.ts';
import { type TSchema, Type } from './schemas.ts';
import { UploadedFile, prepareUploadDir, receiveToFile } from './upload-file.ts';
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
export const uploadTooLarge = (limit: number) =>
  new ApiError('payload_too_large', `The upload is larger than the limit of ${formatBytes(limit)} (${limit} bytes)`, {
    headers: { connection: 'close' },
  });

/** Where the bodies of uploads are written while they arrive (beside DATA_DIR's blobs: a rename). */
export const uploadTempDir = (dataDir: string): string => join(dataDir, 'tmp', 'uploads');

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Upload bodies in flight share `UPLOAD_MEMORY_MB` (default 64: one upload at the 50 MB limit, or
 * many ordinary ones). Bodies go to temporary files, not memory; the budget still
 * bounds what uploads hold together (their files, and the decodes that follow), so a body that does
 * not fit is not read until enough was answered: its sender waits (TCP back-pressure).
 */
export const uploadMemory = new MemoryBudget(64 * 1024 * 1024);

/**
 * What one upload request holds until it is over: its share of `uploadMemory` and the body files
 * written for it. Given back once the answer is sent or the connection is gone, whichever comes
 * first; the files go then too, unless a handler still works on them (`during` removes them itself).
 */
export class UploadTicket {
  private readonly files: UploadedFile[] = [];
  private inHandler = false;
  /** The answer was sent or the connection is gone: a file arriving now is removed at once. */
  closed = false;

  constructor(private readonly release: () => void) {}

  /** A body file of this request, removed when the request is over. */
  keep(file: UploadedFile): void {
    if (this.closed) void file.remove();
    else this.files.push(file);
  }

  over(): void {
    this.closed = true;
    this.release();
    if (!this.inHandler) for (const f of this.files) void f.remove();
  }

  /** Runs the handler on the body files and removes them after it returns or throws. */
  async during<T>(handler: () => Promise<T>): Promise<T> {
    // The client left while the body was checked (rate limit, idempotency): nobody would get the answer.
    if (this.closed) throw new ApiError('invalid_request', 'The client closed the connection before the answer');
    this.inHandler = true;
    try {
      return await handler();
    } finally {
      this.inHandler = false;
      await Promise.all(this.files.map((f) => f.remove()));
    }
  }
}
const tickets = new WeakMap<FastifyRequest, UploadTicket>();

/** The ticket `admitUpload` gave `request`, if it was admitted as an upload. */
export const uploadTicketOf = (request: FastifyRequest): UploadTicket | undefined => tickets.get(request);

/**
 * Admits an upload from its headers, before a byte of its body is read: `413` when Content-Length
 * is over `limit`, then waits for its share of `uploadMemory` (the declared length, or for a chunked
 * body the whole limit it may grow to). Every route whose body is written to disk calls it from its
 * `onRequest` hook, so API and dashboard uploads share one budget.
 */
export async function admitUpload(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { limit: number; tempDir: string; owner: string | null },
): Promise<UploadTicket> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > opts.limit) throw uploadTooLarge(opts.limit);
  await prepareUploadDir(opts.tempDir);
  const size = Number(declared);
  const release = await uploadMemory.acquire(Number.isSafeInteger(size) && size >= 0 ? size : opts.limit, opts.owner);
  const ticket = new UploadTicket(release);
  tickets.set(request, ticket);
  reply.raw.once('close', () => ticket.over());
  if (request.raw.destroyed) ticket.over();
  return ticket;
}

/** Registers the octet-stream body parser in `scope` (once). */
export function acceptRawUploads(scope: FastifyInstance, tempDir: string): void {
  if (scope.hasContentTypeParser(RAW_UPLOAD_TYPE)) return;
  scope.addContentTypeParser(RAW_UPLOAD_TYPE, (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? 0;
    receiveToFile(payload as Readable, { dir: tempDir, limit, tooLarge: () => uploadTooLarge(limit) }, (err, file) => {
      if (err || !file) return done(err ?? new Error('upload body missing'), undefined);
      const ticket = tickets.get(request);
      // Nobody will run the handler for a request that is already over.
      if (ticket) ticket.keep(file);
      else void file.remove();
      done(null, file);
    });
  });
}

/** The body is a file, not JSON: only the other parts go through the schema validator. */
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
  /** Where bodies are written while they arrive: under DATA_DIR, so stored ones are only renamed. */
  tempDir: string;
  /**
   * The body on disk, with its size and SHA-256. It is removed after the handler returns or
   * throws, unless the handler moved it into the blob store (`BlobStore.putFile`).
   */
  handler: (request: FastifyRequest, body: UploadedFile) => Promise<T>;
}

/**
 * Declares `POST <url>` taking raw bytes: `415 unsupported_media_type` for any other Content-Type,
 * `413 payload_too_large` from Content-Length before a byte is read, or while streaming (chunked).
 * The route draws from the `default` and the named bucket.
 */
export function postRawUpload<T>(scope: FastifyInstance, route: RawUploadRoute<T>): void {
  acceptRawUploads(scope, route.tempDir);
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
        body: Type.Unsafe<UploadedFile>({
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
        await admitUpload(request, reply, {
          limit,
          tempDir: route.tempDir,
          owner: request.principal?.organizationId ?? null,
        });
      },
    },
    async (request) => {
      const ticket = tickets.get(request);
      const file = request.body;
      if (!ticket || !(file instanceof UploadedFile)) throw new Error('upload body was not received to a file');
      return ticket.during(() => route.handler(request, file));
    },
  );
}
