import { Nullable, Open, PageQuery, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';
import { EVENT_TYPES } from './events.ts';

/** Types an endpoint can subscribe to; `ping` is sent only by the test call. */
export const SUBSCRIBABLE_TYPES = EVENT_TYPES.filter((t) => t !== 'ping');

const EventTypeIn = Type.String({
  enum: [...SUBSCRIBABLE_TYPES],
  description: `One of ${SUBSCRIBABLE_TYPES.map((t) => `\`${t}\``).join(', ')}`,
});
const EventTypes = Type.Array(EventTypeIn, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_TYPES.length * 2,
  description: 'Event types delivered to this endpoint',
});
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http(s) URL the events are POSTed to' });
const Description = Type.String({ maxLength: 500 });

export const CreateEndpoint = Strict({
  webhookEndpoint: Strict({ url: Url, eventTypes: EventTypes, description: Type.Optional(Description) }),
});
export const UpdateEndpoint = Strict({
  webhookEndpoint: Strict(
    {
      url: Type.Optional(Url),
      eventTypes: Type.Optional(EventTypes),
      description: Type.Optional(Nullable(Description)),
      enabled: Type.Optional(
        Type.Boolean({
          description: 'false pauses deliveries; true re-enables an endpoint (also one disabled for failing)',
        }),
      ),
    },
    { minProperties: 1 },
  ),
});

export const WebhookEndpoint = Open({
  reference: Reference('Webhookendpoint'),
  url: Type.String(),
  eventTypes: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({
      description:
        'Why the service disabled the endpoint (continuous failures); null when enabled or disabled by the partner',
    }),
  ),
  previousSecretExpires: Nullable(Timestamp),
  created: Timestamp,
  updated: Timestamp,
});
export const WebhookEndpointWithSecret = Open({
  ...WebhookEndpoint.properties,
  secret: Type.String({ description: '`whsec_…`: shown only here and on rotation' }),
});

export const DeliveryStatus = Type.String({ enum: ['pending', 'succeeded', 'failed'] });
export const Attempt = Open({
  at: Timestamp,
  responseStatus: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
});
export const WebhookDelivery = Open({
  reference: Reference('Delivery'),
  endpointReference: Reference('Webhookendpoint'),
  eventReference: Reference('Event'),
  eventType: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Array(Attempt),
  nextAttempt: Nullable(Timestamp),
  resendOf: Nullable(Reference('Delivery')),
  created: Timestamp,
});

export const Event = Open({
  reference: Reference('Event'),
  type: Type.String(),
  timestamp: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown()),
});

export const DeliveriesQuery = Strict({
  ...PageQuery,
  endpointReference: Type.Optional(Type.String({ maxLength: 200 })),
  eventReference: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(DeliveryStatus),
});
export const EventsQuery = Strict({
  ...PageQuery,
  type: Type.Optional(Type.String({ enum: [...EVENT_TYPES] })),
  createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
  createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
});
