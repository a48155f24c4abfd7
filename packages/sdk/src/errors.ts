/** A problem the API found with one field of the request (`details` of a 400). */
export interface ValidationDetail {
  /** Where, e.g. `body.order.orderlines[0].quantity`. */
  field: string;
  /** What, e.g. `must be an integer`. */
  problem: string;
}

/**
 * An error answer of the API: `{code, message}` plus the HTTP status and the request id. Each
 * status has its own subclass (`NotFoundError`, `RateLimitError`, …), so `instanceof` picks the
 * case; `code` tells the cases of one status apart (the set of codes is open: fall back on status).
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  constructor(
    /** HTTP status (e.g. 404). */
    readonly status: number,
    /** Machine-readable code (e.g. `not_found`, `rate_limited`); the set is open. */
    readonly code: string,
    message: string,
    /** `X-Request-Id` of the failed request: quote it to support. */
    readonly requestId: string | null,
    /** Validation details, when the API gave them. */
    readonly details?: unknown,
    /** Seconds from `Retry-After`, when the API sent one (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** 400: the request is malformed; `details` lists every problem with its field. */
export class ValidationError extends ApiError {
  override readonly name = 'ValidationError';
  override readonly details: ValidationDetail[] = [];
  constructor(status: number, code: string, message: string, requestId: string | null, details?: unknown) {
    super(status, code, message, requestId, details);
    if (Array.isArray(details)) this.details = details as ValidationDetail[];
  }
}

/** 401: the key is missing, unknown, revoked or of the other environment. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError';
}

/** 403: the key may not do this (a read-only key writing, a store that is not writable via the API). */
export class PermissionError extends ApiError {
  override readonly name = 'PermissionError';
}

/** 404: no such resource for this organization; the message repeats the reference. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}

/** 409: the resource's state does not allow it now (already in production, idempotency key reused, …). */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
}

/** 429: a rate-limit bucket or the rendertoken limit is empty; wait `retryAfter` seconds. */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError';
  /** Seconds to wait before trying again (`Retry-After`). */
  override readonly retryAfter: number;
  constructor(status: number, code: string, message: string, requestId: string | null, retryAfter?: number) {
    super(status, code, message, requestId, undefined, retryAfter);
    this.retryAfter = retryAfter ?? 1;
  }
}

/** 5xx: the service failed; retried automatically where safe, then thrown. Retry later. */
export class ServerError extends ApiError {
  override readonly name = 'ServerError';
}

/** The subclass for an answer's status. */
export function apiErrorFor(
  status: number,
  code: string,
  message: string,
  requestId: string | null,
  details?: unknown,
  retryAfter?: number,
): ApiError {
  if (status === 400 || status === 422) return new ValidationError(status, code, message, requestId, details);
  if (status === 401) return new AuthenticationError(status, code, message, requestId, details);
  if (status === 403) return new PermissionError(status, code, message, requestId, details);
  if (status === 404) return new NotFoundError(status, code, message, requestId, details);
  if (status === 409) return new ConflictError(status, code, message, requestId, details);
  if (status === 429) return new RateLimitError(status, code, message, requestId, retryAfter);
  if (status >= 500) return new ServerError(status, code, message, requestId, details, retryAfter);
  return new ApiError(status, code, message, requestId, details, retryAfter);
}

/** The request never got an HTTP answer (connection refused, reset, DNS, time-out). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A download asked for with `{wait: false}` is not ready yet (`202`). */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
  constructor(
    message: string,
    /** Seconds the API asked to wait (`Retry-After`). */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** `renders.createAndWait` saw the render fail, or waited longer than its time-out. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  constructor(
    message: string,
    readonly renderReference: string,
    readonly status: string,
  ) {
    super(message);
  }
}
