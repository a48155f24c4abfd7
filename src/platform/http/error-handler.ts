import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError, type ErrorCode } from '../errors.ts';
import { isAbortedByConflict, isFromDatabase } from '../db/types.ts';
import { validationMessage } from './validation.ts';

const FASTIFY_CODES: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'Content-Type is not supported on this endpoint; send application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'Request body is larger than this endpoint accepts',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_request',
    message: 'Body is empty but Content-Type is application/json',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'Body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_INVALID_TYPE: {
    code: 'unsupported_media_type',
    message: 'Content-Type header is malformed',
  },
  FST_ERR_BAD_URL: { code: 'invalid_request', message: 'The URL is malformed' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'invalid_request' },
};

/**
 * Errors of the database client that mean the database is unreachable: the client may retry,
 * the process stays up. Only errors the client threw count: a socket reset of the partner's own
 * connection (an aborted upload) carries the same ECONNRESET and is no database trouble.
 */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !isFromDatabase(err)) return false;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '53300'].includes(code) ||
    code.startsWith('08')
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The error body this request is answered with, as sent (the request log keeps it). */
    errorBody?: unknown;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  const body: Record<string, unknown> = { code: err.code, message: err.message, requestId: request.id };
  if (err.details !== undefined) body.details = err.details;
  request.errorBody = body;
  return reply.status(err.status).type('application/json; charset=utf-8').send(body);
}

export function toApiError(err: FastifyError | Error, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const { message, details } = validationMessage(fe.validationContext ?? 'body', fe.validation as never);
    return new ApiError('invalid_request', message, { details });
  }
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) return new ApiError(mapped.code, mapped.message ?? fe.message);
  if (err instanceof SyntaxError && (fe.statusCode === 400 || /JSON/.test(err.message))) {
    return new ApiError('invalid_request', 'Body is not valid JSON');
  }
  if (isAbortedByConflict(err)) {
    request.log.warn({ err }, 'transaction aborted for a conflict');
    return new ApiError(
      'write_conflict',
      'Another request changed the same records at the same moment; nothing was written, send the request again',
      { headers: { 'retry-after': '1' } },
    );
  }
  if (isUnavailable(err)) {
    request.log.error({ err }, 'database unavailable');
    return new ApiError('service_unavailable', 'The service is temporarily unavailable; retry later', {
      headers: {
        'retry-after': '5',
      },
    });
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('invalid_request', fe.message, { status: fe.statusCode });
  }
  request.log.error({ err }, 'unhandled error');
  return new ApiError('internal_error', 'An unexpected error occurred; it has been logged with the request id');
}

/**
 * One error handler, a JSON 404 for unknown routes and a 405 for a known path with another method.
 * Routes are mirrored into a router of our own because Fastify answers both cases with 404.
 */
export function installErrorHandling(
  app: FastifyInstance,
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const known = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD') continue;
      try {
        known.on(m as 'GET', route.url, () => {});
      } catch {
        // the same route registered twice under one prefix is not ours to judge here
      }
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => sendError(request, reply, toApiError(err, request)));

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => known.find(m as 'GET', path));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        request,
        reply,
        new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`),
      );
    }
    return sendError(request, reply, new ApiError('not_found', `No route ${request.method} ${path}`));
  };
  app.setNotFoundHandler(notFound);
  // Returned so that a scope with its own hooks (the authenticated /v2) can answer the same way.
  return notFound;
}
