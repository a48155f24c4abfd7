import type { DeliveryRow, EndpointRow, EventRow } from './repo.ts';

export const toEndpoint = (e: EndpointRow, now: Date) => ({
  reference: e.id,
  url: e.url,
  eventTypes: e.event_types,
  description: e.description,
  enabled: e.enabled,
  disabledReason: e.disabled_reason,
  previousSecretExpires:
    e.previous_secret_expires_at && e.previous_secret_expires_at > now
      ? e.previous_secret_expires_at.toISOString()
      : null,
  created: e.created_at.toISOString(),
  updated: e.updated_at.toISOString(),
});

export const toDelivery = (d: DeliveryRow) => ({
  reference: d.id,
  endpointReference: d.endpoint_id,
  eventReference: d.event_id,
  eventType: d.event_type,
  status: d.status,
  attempts: d.attempts,
  nextAttempt: d.next_attempt_at ? d.next_attempt_at.toISOString() : null,
  resendOf: d.resend_of,
  created: d.created_at.toISOString(),
});

export const toEvent = (e: EventRow) => ({
  reference: e.id,
  type: e.type,
  timestamp: e.created_at.toISOString(),
  data: e.data,
});
