import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { LOGIN_CSRF_COOKIE, SESSION_COOKIE } from './cookies.ts';
import type { DashboardService } from './service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The dashboard route takes a file: only these accept `multipart/form-data`. */
    dashboardFiles?: boolean;
  }
}

/** The double-submit token of the sign-in and invitation forms, as `loginToken` sets it. */
export const LOGIN_TOKEN = /^[\w-]{43}$/;

const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();

/** A refused request whose body was not read: the socket closes after the answer, so it is never read. */
const unread = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
    ? { headers: { connection: 'close' } }
    : {};

/**
 * Looks up the session of every dashboard and console request, and refuses a form POST from its
 * headers alone, before a byte of its body is read or parsed: a POST that cannot pass the CSRF
 * check (no session, or for the sign-in and invitation forms no login token cookie), and a
 * multipart body on a route that takes no file. An unauthenticated sender therefore costs the
 * service nothing beyond its headers, whatever body it announces.
 */
export function installFormGate(scope: FastifyInstance, dashboard: Pick<DashboardService, 'session'>): void {
  scope.addHook('onRequest', async (req) => {
    const area = req.routeOptions.config.dashboard;
    if (!area) return;
    req.dashboardSession = await dashboard.session(req.cookies[SESSION_COOKIE]);
    if (req.method !== 'POST') return;
    const credential =
      area === 'public' ? LOGIN_TOKEN.test(req.cookies[LOGIN_CSRF_COOKIE] ?? '') : req.dashboardSession !== null;
    if (!credential) throw csrfRefused(unread(req));
    const type = mediaType(req.headers['content-type']);
    if (type === 'multipart/form-data' && !req.routeOptions.config.dashboardFiles)
      throw new ApiError('unsupported_media_type', 'This form takes no file: send it as a plain form', unread(req));
  });
}

/** A form's token against the expected one, in constant time; an empty one never matches. */
export function sameToken(given: string, expected: string): boolean {
  const x = Buffer.from(given);
  const y = Buffer.from(expected);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export const csrfRefused = (opts: { headers?: Record<string, string> } = {}) =>
  new ApiError(
    'csrf_token_invalid',
    'This form has expired or did not come from this site (missing or wrong security token). Reload the page and submit it again.',
    opts,
  );
