import type { RequestLogPage, RequestLogRow } from './repo.ts';

/** A stored request as other modules get it (the dashboard's request log and support lookup). */
export interface LoggedRequest {
  /** Its address in the log (digits: the request's place among all stored ones). */
  seq: string;
  requestId: string;
  organizationReference: string;
  /** Known where a lookup crosses organizations (the support lookup); otherwise undefined. */
  organizationName?: string | null;
  keyReference: string | null;
  keyHint: string | null;
  keyName: string | null;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  errorCode: string | null;
  /** Kept for errors only, redacted before they were stored. */
  requestBody: unknown;
  responseBody: unknown;
  created: Date;
}

export interface LoggedRequestPage {
  requests: LoggedRequest[];
  /** Where the next page starts; null when every older request was searched. */
  next: string | null;
  /** Set when the search stopped before the page was full: the oldest time it looked at. */
  searchedTo?: Date;
}

export function loggedRequest(r: RequestLogRow & { organization_name?: string | null }): LoggedRequest {
  return {
    seq: r.seq,
    requestId: r.request_id,
    organizationReference: r.organization_id,
    ...(r.organization_name !== undefined ? { organizationName: r.organization_name } : {}),
    keyReference: r.key_id,
    keyHint: r.key_hint,
    keyName: r.key_name,
    method: r.method,
    path: r.path,
    status: r.status,
    latencyMs: r.latency_ms,
    errorCode: r.error_code,
    requestBody: r.request_body,
    responseBody: r.response_body,
    created: r.created_at,
  };
}

export function loggedRequestPage(p: RequestLogPage): LoggedRequestPage {
  return {
    requests: p.rows.map(loggedRequest),
    next: p.next,
    ...(p.searchedTo ? { searchedTo: p.searchedTo } : {}),
  };
}
