import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { Strict } from './schemas.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Exponents of three digits or more are the only way JSON text can become Infinity. */
const HUGE_EXPONENT = /[eE][+]?\d{3}/;

function nonFiniteAt(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (depth > 64 || !value || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const found = nonFiniteAt(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * The JSON parser of every route: an empty body is no body (clients often send the content type
 * on a body-less POST), and a number too large for a double (`1e400` parses to Infinity, which
 * ajv's integer check lets through) is a 400 naming the field.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      const bad = HUGE_EXPONENT.test(text) ? nonFiniteAt(value, 'body') : null;
      if (bad) return done(new ApiError('invalid_request', `${bad} is a number out of range`), undefined);
      done(null, value);
    });
  });
}

/**
 * Strictness for the routes of one scope: a route that documents no query parameters accepts none,
 * and a write that documents no body accepts none (spec: undocumented request fields are rejected).
 */
export function installStrictRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as { querystring?: unknown; body?: unknown; hide?: boolean };
    if (!schema.querystring) schema.querystring = Strict({});
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (schema.body || !methods.some((m) => WRITES.has(m))) return;
    const previous = route.preValidation;
    const check = async (request: { body?: unknown }) => {
      if (request.body !== undefined && request.body !== null && !Buffer.isBuffer(request.body)) {
        throw new ApiError('invalid_request', 'body is not accepted on this endpoint; send none');
      }
    };
    route.preValidation = previous ? [...(Array.isArray(previous) ? previous : [previous]), check] : check;
  });
}
