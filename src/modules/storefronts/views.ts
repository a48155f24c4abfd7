import type { ConnectionRow, InboxRow, OperationRow, PrivacyRow } from './repo.ts';

/** A store's link to its shop, as the dashboard shows it; the sealed token stays in this module. */
export interface StorefrontConnection {
  storeId: string;
  organizationId: string;
  shopDomain: string;
  status: ConnectionRow['status'];
  connectedAt: Date;
  disconnectedAt: Date | null;
  /** The fulfillment location Shopify gave this service; null until registered (and for the demo shop). */
  locationId: string | null;
}

/** One call to the shop (a fulfillment, a publication, …) and where it stands. */
export interface StorefrontOperation {
  id: string;
  kind: string;
  /** What it is for: an order, a shipment, a publication. */
  subject: string;
  status: OperationRow['status'];
  attempts: number;
  lastError: string | null;
  updatedAt: Date;
}

/** One webhook the shop sent, and what came of it (null while waiting). */
export interface StorefrontWebhook {
  deliveryKey: string;
  topic: string;
  receivedAt: Date;
  outcome: string | null;
}

/** One privacy request of the shop (data request, customer or shop redact) and what was done. */
export interface PrivacyRequest {
  topic: string;
  action: string;
  createdAt: Date;
}

export const storefrontConnection = (c: ConnectionRow): StorefrontConnection => ({
  storeId: c.store_id,
  organizationId: c.organization_id,
  shopDomain: c.shop_domain,
  status: c.status,
  connectedAt: c.connected_at,
  disconnectedAt: c.disconnected_at,
  locationId: c.location_id,
});

export const storefrontOperation = (o: OperationRow): StorefrontOperation => ({
  id: o.id,
  kind: o.kind,
  subject: o.subject,
  status: o.status,
  attempts: o.attempts,
  lastError: o.last_error,
  updatedAt: o.updated_at,
});

export const storefrontWebhook = (w: InboxRow): StorefrontWebhook => ({
  deliveryKey: w.delivery_key,
  topic: w.topic,
  receivedAt: w.received_at,
  outcome: w.outcome,
});

export const privacyRequest = (p: PrivacyRow): PrivacyRequest => ({
  topic: p.topic,
  action: p.action,
  createdAt: p.created_at,
});
