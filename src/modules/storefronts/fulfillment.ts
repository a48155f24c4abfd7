import type { StorefrontsDeps } from './deps.ts';
import { requestHandlers } from './fulfillment-requests.ts';
import type { Operations } from './operations.ts';
import { storefrontsRepo as repo } from './repo.ts';
import { RetryLater, type UserErrorsPayload as Payload, assertNoUserErrors } from './shopify/client.ts';
import * as D from './shopify/documents.ts';
import { SUBSCRIBED_TOPICS } from './shopify/payloads.ts';

/**
 * The fulfillment service's side of Shopify's fulfillment flow: registering, taking (or rejecting)
 * fulfillment requests, answering cancellation requests, and reporting shipments with tracking.
 */
export function fulfillmentHandlers(deps: StorefrontsDeps, ops: Operations) {
  const { db } = deps;

  ops.handle('setup', async ({ conn, gql }) => {
    if (!conn.fulfillment_service_id) {
      const r: {
        fulfillmentServiceCreate: Payload & {
          fulfillmentService: { id: string; location: { id: string } | null } | null;
        };
      } = await gql.request(D.FULFILLMENT_SERVICE_CREATE, {
        name: 'Print on demand',
        callbackUrl: `${deps.publicBaseUrl}/integrations/shopify`,
      });
      assertNoUserErrors(r.fulfillmentServiceCreate, 'fulfillmentServiceCreate');
      const svc = r.fulfillmentServiceCreate.fulfillmentService!;
      await repo.setFulfillmentService(db, conn.store_id, svc.id, svc.location?.id ?? '');
    }
    for (const topic of SUBSCRIBED_TOPICS) {
      const r: { webhookSubscriptionCreate: Payload } = await gql.request(D.WEBHOOK_SUBSCRIPTION_CREATE, {
        topic,
        uri: `${deps.publicBaseUrl}/integrations/shopify/webhooks`,
      });
      // "Address for this topic has already been taken": subscribed on an earlier connect.
      const errs = r.webhookSubscriptionCreate.userErrors.filter((e) => !/already been taken/i.test(e.message));
      assertNoUserErrors({ userErrors: errs }, `webhookSubscriptionCreate ${topic}`);
    }
    return 'fulfillment service and webhooks registered';
  });

  requestHandlers(deps, ops);

  ops.handle('fulfillment_create', async ({ op, gql }) => {
    const p = op.payload as { orderId: string; company: string | null; number: string | null; url: string | null };
    const f = await repo.fulfillment(db, p.orderId);
    if (f?.fulfillment_id) return `already fulfilled as ${f.fulfillment_id}`;
    // The request is accepted by a job of its own; until then there is no fulfillment order to fulfil.
    if (!f || f.fulfillment_order_ids.length === 0)
      throw new RetryLater('the fulfillment request is not accepted yet', 60_000);
    const tracking = {
      ...(p.company ? { company: p.company } : {}),
      ...(p.number ? { number: p.number } : {}),
      ...(p.url ? { url: p.url } : {}),
    };
    const r: { fulfillmentCreate: Payload & { fulfillment: { id: string } | null } } = await gql.request(
      D.FULFILLMENT_CREATE,
      {
        fulfillment: {
          notifyCustomer: true,
          trackingInfo: tracking,
          lineItemsByFulfillmentOrder: f.fulfillment_order_ids.map((id) => ({ fulfillmentOrderId: id })),
        },
      },
    );
    assertNoUserErrors(r.fulfillmentCreate, 'fulfillmentCreate');
    await repo.setFulfillment(db, p.orderId, r.fulfillmentCreate.fulfillment!.id, null);
    return `fulfillment ${r.fulfillmentCreate.fulfillment!.id}`;
  });

  ops.handle('fulfillment_event', async ({ op, gql }) => {
    const p = op.payload as { orderId: string; status: string; happenedAt: string; message: string | null };
    const f = await repo.fulfillment(db, p.orderId);
    if (!f?.fulfillment_id) throw new RetryLater('the fulfillment is not created yet', 60_000);
    const r: { fulfillmentEventCreate: Payload } = await gql.request(D.FULFILLMENT_EVENT_CREATE, {
      event: {
        fulfillmentId: f.fulfillment_id,
        status: p.status,
        happenedAt: p.happenedAt,
        ...(p.message ? { message: p.message } : {}),
      },
    });
    assertNoUserErrors(r.fulfillmentEventCreate, 'fulfillmentEventCreate');
    await repo.setFulfillment(db, p.orderId, null, p.status);
    return p.status;
  });
}

/** The carrier labelled the parcel after the fulfillment was made (the announce job runs later). */
export function trackingInfoHandler(deps: StorefrontsDeps, ops: Operations) {
  const { db } = deps;
  ops.handle('fulfillment_tracking', async ({ op, gql }) => {
    const p = op.payload as { orderId: string; company: string | null; number: string; url: string | null };
    const f = await repo.fulfillment(db, p.orderId);
    if (!f?.fulfillment_id) throw new RetryLater('the fulfillment is not created yet', 60_000);
    const r: { fulfillmentTrackingInfoUpdate: Payload } = await gql.request(D.FULFILLMENT_TRACKING_INFO_UPDATE, {
      fulfillmentId: f.fulfillment_id,
      trackingInfoInput: {
        number: p.number,
        ...(p.company ? { company: p.company } : {}),
        ...(p.url ? { url: p.url } : {}),
      },
      notifyCustomer: true,
    });
    assertNoUserErrors(r.fulfillmentTrackingInfoUpdate, 'fulfillmentTrackingInfoUpdate');
    return `tracking ${p.number}`;
  });
}
