/** The one error type of the service: every failure a client sees is one of these. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'invalid_request', details?: unknown) =>
  new ApiError(400, code, message, details);

/** `what` names the kind of thing; `reference` (when the caller gave one) is repeated back. */
export const notFound = (what: string, reference?: string) =>
  new ApiError(404, 'not_found', reference ? `${what} ${reference} not found` : `${what} not found`);

export const conflict = (code: string, message: string) => new ApiError(409, code, message);

export const forbidden = (code: string, message: string) => new ApiError(403, code, message);
