/**
 * Every error code the service answers with, by area in errors/common.ts, errors/partner.ts and
 * errors/operator.ts: its HTTP status, the group of docs/errors.md it is
 * listed under and when it happens. docs/errors.md and the OpenAPI error descriptions are
 * generated from this table (`npm run docs:errors`; a test fails when they disagree), and a code
 * that is not in it does not compile.
 */
import { COMMON_ERRORS } from './errors/common.ts';
import { type ErrorSpec, PARTNER_GROUPS } from './errors/groups.ts';
import { OPERATOR_ERRORS } from './errors/operator.ts';
import { PARTNER_ERRORS } from './errors/partner.ts';

export { ERROR_GROUPS, type ErrorGroup, PARTNER_GROUPS } from './errors/groups.ts';

/** A code registered in two areas would silently take the later one's status: it does not compile. */
type Shared<A, B> = Extract<keyof A, keyof B>;
const oneAreaEach: [
  Shared<typeof COMMON_ERRORS, typeof PARTNER_ERRORS>,
  Shared<typeof COMMON_ERRORS, typeof OPERATOR_ERRORS>,
  Shared<typeof PARTNER_ERRORS, typeof OPERATOR_ERRORS>,
] extends [never, never, never]
  ? true
  : never = true;
void oneAreaEach;

/** The one registry, in the order docs/errors.md lists the codes. */
export const ERRORS = { ...COMMON_ERRORS, ...PARTNER_ERRORS, ...OPERATOR_ERRORS };

export type ErrorCode = keyof typeof ERRORS;
/** The codes registered with status `S` (what `conflict`, `forbidden` and `badRequest` accept). */
export type ErrorCodeOf<S extends number> = {
  [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never;
}[ErrorCode];

export const statusOf = (code: ErrorCode): number => ERRORS[code].status;

/** What each status means, ahead of its codes in the OpenAPI error descriptions. */
const STATUS_MEANINGS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid X-Service-Secret-Key',
  403: 'Insufficient permissions',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  408: 'Request timeout',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported Content-Type',
  429: 'Rate limit exceeded; see Retry-After and X-RateLimit',
  431: 'Request headers too large',
  500: 'Internal error',
  503: 'Temporarily unavailable; retry later',
};

/** An error response's description in the OpenAPI document: the status and the partner codes it carries. */
export function statusDescription(status: number): string {
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter(
    (c) =>
      ERRORS[c].status === status &&
      [ERRORS[c].group, ...((ERRORS[c] as ErrorSpec).also ?? []).map((a) => a.group)].some((g) =>
        PARTNER_GROUPS.includes(g),
      ),
  );
  const meaning = STATUS_MEANINGS[status] ?? 'Error';
  return codes.length ? `${meaning}: ${codes.map((c) => `\`${c}\``).join(', ')}` : meaning;
}

/** The one error type of the service: every failure a client sees is one of these. */
export class ApiError extends Error {
  readonly status: number;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    extra: {
      details?: unknown;
      headers?: Record<string, string>;
      /** Only where the framework decided the status (a 4xx it raised): otherwise the code's. */
      status?: number;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = extra.status ?? ERRORS[code].status;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

export const badRequest = (message: string, code: ErrorCodeOf<400> = 'invalid_request', details?: unknown) =>
  new ApiError(code, message, { details });

/** `what` names the kind of thing; `reference` (when the caller gave one) is repeated back. */
export const notFound = (what: string, reference?: string) =>
  new ApiError('not_found', reference ? `${what} ${reference} not found` : `${what} not found`);

export const conflict = (code: ErrorCodeOf<409>, message: string) => new ApiError(code, message);

export const forbidden = (code: ErrorCodeOf<403>, message: string) => new ApiError(code, message);

/**
 * The one not-found guard: a lookup's result, or the 404 every missing, malformed or foreign
 * resource gets (never revealing which). Pair it with a nullable `find…` lookup.
 */
export function mustFind<T>(found: T | null | undefined, what: string, reference?: string): T {
  if (found === null || found === undefined) throw notFound(what, reference);
  return found;
}
