/** An error answer of the API: `{code, message}` plus the HTTP status and the request id. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
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
