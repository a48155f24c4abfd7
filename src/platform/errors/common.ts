import type { ErrorSpec } from './groups.ts';

/** Codes any endpoint may answer with. */
export const COMMON_ERRORS = {
  // ---- any endpoint ----
  invalid_request: {
    status: 400,
    group: 'any',
    description:
      'the body or query does not match the schema (missing field, wrong type, out of range, **undocumented field or query parameter**), body not valid JSON, an empty JSON body, a malformed URL, a NUL character or a lone UTF-16 surrogate in a string (sent raw or escaped), an `Idempotency-Key` not 1–255 characters, a reference in the body that is not yours, and other input errors whose message says which field (e.g. an unknown `orderlineIndex` in a cancel)',
  },
  request_timeout: {
    status: 408,
    group: 'any',
    description:
      "the request did not arrive within the server's time (2 minutes); answered by the server before any route, without rate-limit headers",
  },
  request_header_fields_too_large: {
    status: 431,
    group: 'any',
    description: 'the request headers are larger than the server accepts (answered before any route)',
  },
  unauthorized: {
    status: 401,
    group: 'any',
    description:
      '`X-Service-Secret-Key` missing, unknown or revoked; or an `sk_live_` key on a test server (and the reverse). A request that sends `Authorization: Bearer` instead is told to use `X-Service-Secret-Key`',
    also: [{ group: 'operator', description: 'operator API or `/metrics` without the right bearer token' }],
  },
  insufficient_permissions: {
    status: 403,
    group: 'any',
    description:
      'a read-only key on an endpoint that needs a full key, whatever its HTTP method: anything that creates, changes or deletes something, and live render previews. A read-only key may read everything, validate itself (`POST /v2/auth/validate`) and ask for a shipping quote (`POST /v2/quote`); the OpenAPI document marks those two with `x-read-only-allowed`',
  },
  not_found: {
    status: 404,
    group: 'any',
    description:
      'unknown route; a resource that does not exist, is malformed, has the wrong type prefix or belongs to another organization (never revealed). The message repeats the reference: `Order Order_… not found`',
  },
  method_not_allowed: { status: 405, group: 'any', description: 'the path exists, the method does not' },
  payload_too_large: {
    status: 413,
    group: 'any',
    description: 'a JSON body over `BODY_LIMIT_BYTES` (1 MB) or an upload over `UPLOAD_LIMIT_BYTES` (50 MB)',
  },
  unsupported_media_type: {
    status: 415,
    group: 'any',
    description:
      'a JSON endpoint without `Content-Type: application/json`; an upload without `application/octet-stream`; a malformed `Content-Type`',
  },
  rate_limited: {
    status: 429,
    group: 'any',
    description:
      'a rate-limit bucket is empty; wait `Retry-After`. Also more than 60 invalid keys a minute from one client address (valid keys are not affected)',
    also: [
      { group: 'webhooks', description: 'more than 10 test pings (`POST /webhook-endpoints/{ref}/test`) a minute' },
    ],
  },
  idempotency_key_reused: {
    status: 409,
    group: 'any',
    description: 'the same `Idempotency-Key` with a different request within 24 hours',
  },
  idempotency_request_in_progress: {
    status: 409,
    group: 'any',
    description: 'the first request with this `Idempotency-Key` is still running; retry shortly',
  },
  invalid_cursor: {
    status: 400,
    group: 'any',
    description: 'a `cursor` that was not issued by this list, or was altered ([pagination](pagination.md))',
  },
  internal_error: { status: 500, group: 'any', description: 'unexpected; logged with the `requestId`' },
  write_conflict: {
    status: 503,
    group: 'any',
    description:
      "the database aborted the request's transaction for a conflict with others on the same records at that moment (deadlock or serialization failure), as often as the service runs it again; nothing was written; `Retry-After: 1`",
  },
  service_unavailable: {
    status: 503,
    group: 'any',
    description: 'the database is unreachable; `Retry-After: 5`',
  },
} as const satisfies Record<string, ErrorSpec>;
