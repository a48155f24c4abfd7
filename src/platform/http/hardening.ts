import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERRORS, type ErrorCode, statusDescription } from '../errors.ts';
import { sendError, toApiError } from './error-handler.ts';

/**
 * Errors Fastify raises before routing (a malformed URL, a path parameter past the router's length
 * limit) get the service's `{code, message}` body and request id like any other. An over-long path
 * parameter can only be a malformed reference, and a malformed reference in a path is a 404.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(
      request,
      reply,
      new ApiError('not_found', 'No such resource: a path reference is far longer than any reference'),
    );
    return;
  }
  sendError(request, reply, toApiError(err, request));
}

/**
 * Statuses the platform gives on any route that writes, whatever the module wrote: a body too large
 * (413) or of another type (415), a read-only key (403 insufficient_permissions), and on POST a
 * reused Idempotency-Key (409 idempotency_key_reused). The OpenAPI document must list them, since the
 * fuzz suite holds every response to the documented statuses of its operation. Writes a read-only
 * key may make are marked `x-read-only-allowed`.
 */
export function documentTransportErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined;
    if (!schema?.response || schema.hide) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => m !== 'GET' && m !== 'HEAD')) return;
    const add = (status: number) => {
      if (!schema.response![status] && !schema.response![String(status)])
        schema.response![status] = { $ref: 'Error', description: statusDescription(status) };
    };
    add(413);
    add(415);
    const prefixed = route.url.startsWith('/v2/') || route.prefix === '/v2';
    const access = route.config?.access;
    // Tells partners (and the isolation suite) which writes a read-only key may still make.
    if (prefixed && access === 'read') (schema as Record<string, unknown>)['x-read-only-allowed'] = true;
    if (prefixed && access === 'write') add(403);
    if (prefixed && methods.includes('POST')) add(409);
  });
}

type Flaw = 'nul' | 'surrogate';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const flawOf = (text: string): Flaw | null =>
  text.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(text) ? 'surrogate' : null;

/** The first path inside `value` holding a string PostgreSQL cannot store, and why; or null. */
function flawAt(value: unknown, path: string, depth = 0): { path: string; flaw: Flaw } | null {
  if (typeof value === 'string') {
    const flaw = flawOf(value);
    return flaw ? { path, flaw } : null;
  }
  if (depth > 64 || !value || typeof value !== 'object') return null;
  // Bytes (an uploaded file) are not text: walking them would cost one entry per byte.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return null;
  for (const [k, v] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`;
    const flaw = flawOf(k);
    if (flaw) return { path: here, flaw };
    const found = flawAt(v, here, depth + 1);
    if (found) return found;
  }
  return null;
}

const PROBLEM: Record<Flaw, string> = {
  nul: 'must not contain a NUL character',
  surrogate: 'is not well-formed Unicode (it holds a lone UTF-16 surrogate such as \\ud800)',
};

/**
 * Why a parsed value cannot be stored (PostgreSQL text and jsonb hold no NUL character nor lone
 * UTF-16 surrogate, whether sent raw or as a `\u0000` / `\ud800` escape): the first such field,
 * named from `path`, and its problem; or null. Routes that keep a body as its raw text (signed
 * webhooks) call it on what they parse, since the hook below sees only that text.
 */
export function unstorableText(value: unknown, path: string): string | null {
  const found = flawAt(value, path);
  return found ? `${found.path} ${PROBLEM[found.flaw]}` : null;
}

/**
 * PostgreSQL text cannot hold a NUL character nor a lone UTF-16 surrogate: such a string would
 * fail deep inside a query as a 500. Every parsed path, query and JSON body is checked once here
 * instead, and refused as a 400 that names the field.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // A path holds references, and a malformed reference in a path is a 404 like any other.
    if (flawAt(request.params, 'path'))
      throw new ApiError('not_found', 'No such resource: the path holds a character no reference has');
    const problem = unstorableText(request.query, 'query') ?? unstorableText(request.body, 'body');
    if (problem) throw new ApiError('invalid_request', problem);
  });
}

/** What Node's HTTP parser refused before Fastify saw a request, answered in the service's shape. */
const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['request_header_fields_too_large', 'The request headers are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request did not arrive in time; send it again'],
};

/**
 * Malformed HTTP (400), a request that took too long (408) and headers that are too large (431)
 * never reach a route: Node's parser rejects them. Fastify's own answer is `{error, message,
 * statusCode}`; this gives them `{code, message, requestId}` like every other error.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message]: [ErrorCode, string] = CLIENT_ERRORS[err.code ?? ''] ?? [
    'invalid_request',
    'The request is not valid HTTP',
  ];
  const status = ERRORS[code].status;
  const requestId = randomUUID();
  const body = JSON.stringify({ code, message, requestId });
  // end() alone only half-closes: a slow-loris client that never stops sending would keep the
  // socket open for ever, so it is destroyed once the answer is flushed (as Node's own handler does).
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
  // A client that does not read the answer still loses the socket.
  setTimeout(() => socket.destroy(), 5_000).unref();
}
