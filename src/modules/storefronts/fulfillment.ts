import { ApiError } from '../../platform/errors.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { storefrontsRepo as repo } from './repo.ts';
import { RetryLater, type ShopifyGraphql, assertNoUserErrors } from './shopify/client.ts';
import * as D from './shopify/documents.ts';
import { addressOf, numericId, ourLines, shippingLevelOf } from './shopify/mapping.ts';
import { SUBSCRIBED_TOPICS } from './shopify/payloads.ts';

interface FulfillmentOrderNode {
  id: string;
  orderId: string;
  orderName: string;
  deliveryMethod: { methodType: string; presentedName: string | null; serviceCode: string | null } | null;
  destination: Record<string, string | null> | null;
  lineItems: {
    nodes: Array<{
      id: string;
      sku: string | null;
      totalQuantity: number;
      remainingQuantity: number;
      lineItem: { id: string };
    }>;
  };
  merchantRequests: { nodes: Array<{ message: string | null }> };
}

type Payload = { userErrors: Array<{ field: string[] | null; message: string }> };

async function assigned(gql: ShopifyGraphql, status: string): Promise<FulfillmentOrderNode[]> {
  const out: FulfillmentOrderNode[] = [];
  let after: string | null = null;
  for (let page = 0; page < 20; page++) {
    const data: {
      assignedFulfillmentOrders: {
        nodes: FulfillmentOrderNode[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    } = await gql.request(D.ASSIGNED_FULFILLMENT_ORDERS, { status, after });
    out.push(...data.assignedFulfillmentOrders.nodes);
    if (!data.assignedFulfillmentOrders.pageInfo.hasNextPage) break;
    after = data.assignedFulfillmentOrders.pageInfo.endCursor;
  }
  return out;
}

/** Why a fulfillment request is rejected, in Shopify's reasons. */
function rejectionReason(code: string): string {
  if (code === 'product_not_orderable') return 'INELIGIBLE_PRODUCT';
  if (code.startsWith('invalid_address_denied')) return 'UNDELIVERABLE_DESTINATION';
  if (code === 'invalid_address_missing_email') return 'INVALID_CONTACT_INFORMATION';
  if (code.startsWith('invalid_address') || code === 'missing_address') return 'INCORRECT_ADDRESS';
  return 'OTHER';
}

/**
 * The fulfillment service's side of Shopify's fulfillment flow: registering, taking (or rejecting)
 * fulfillment requests, answering cancellation requests, and reporting shipments with tracking.
 */
export function fulfillmentHandlers(deps: StorefrontsDeps, ops: Operations) {
  const { db } = deps;

  /** An order from a fulfillment order whose Shopify order the service has not seen yet. */
  async function orderFromRequest(
    orgId: string,
    storeId: string,
    fo: FulfillmentOrderNode,
  ): Promise<{ order: { reference: string; status: string } | null; refusal: ApiError | null }> {
    const lines = ourLines(
      fo.lineItems.nodes.map((l) => ({
        sku: l.sku,
        quantity: l.remainingQuantity,
        admin_graphql_api_id: l.lineItem.id,
      })),
    );
    if (lines.length === 0)
      return {
        order: null,
        refusal: new ApiError('product_not_orderable', 'No line of this fulfillment order is a product of ours'),
      };
    const d = fo.destination ?? {};
    const dm = fo.deliveryMethod;
    try {
      const made = await deps.orders.createUpstream(orgId, storeId, {
        platform: 'shopify',
        upstreamId: numericId(fo.orderId),
        upstreamName: fo.orderName,
        // The delivery option the buyer chose, named as on the order's shipping line.
        minimalShippingLevel: shippingLevelOf(dm ? [{ title: dm.presentedName, code: dm.serviceCode }] : []),
        address: addressOf(
          {
            first_name: d.firstName,
            last_name: d.lastName,
            company: d.company,
            address1: d.address1,
            address2: d.address2,
            city: d.city,
            zip: d.zip,
            province: d.province,
            country_code: d.countryCode,
            phone: d.phone,
          },
          d.email,
        ),
        lines: lines.map((l) => ({
          productReference: l.productReference,
          ...(l.imageReference ? { imageReference: l.imageReference } : {}),
          quantity: l.quantity,
          ...(l.upstreamLineId ? { annotations: [{ key: 'shopifyLineItem', value: l.upstreamLineId }] } : {}),
        })),
      });
      return { order: { reference: made.reference, status: 'pending' }, refusal: null };
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return { order: null, refusal: err };
    }
  }

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

  ops.handle('fulfillment_requests', async ({ op, gql }) => {
    const notes: string[] = [];
    for (const fo of await assigned(gql, 'FULFILLMENT_REQUESTED')) {
      const upstreamId = numericId(fo.orderId);
      let order = await deps.orders.findUpstream(db, op.store_id, upstreamId);
      let refusal: ApiError | null = null;
      if (!order) {
        // The request came before orders/create (or instead of it): the order is made from the
        // fulfillment order itself, and orders/create finds it taken (one order per Shopify order).
        const made = await orderFromRequest(op.organization_id, op.store_id, fo);
        order = made.order;
        refusal = made.refusal;
      }
      if (order && !refusal) {
        await repo.addFulfillmentOrder(db, order.reference, op.store_id, fo.id);
        const r: { fulfillmentOrderAcceptFulfillmentRequest: Payload } = await gql.request(
          D.ACCEPT_FULFILLMENT_REQUEST,
          {
            id: fo.id,
            message: `Accepted as order ${order.reference}`,
          },
        );
        assertNoUserErrors(r.fulfillmentOrderAcceptFulfillmentRequest, 'fulfillmentOrderAcceptFulfillmentRequest');
        notes.push(`${fo.orderName} accepted as ${order.reference}`);
      } else {
        const reason = refusal ? rejectionReason(refusal.code) : 'OTHER';
        const r: { fulfillmentOrderRejectFulfillmentRequest: Payload } = await gql.request(
          D.REJECT_FULFILLMENT_REQUEST,
          {
            id: fo.id,
            reason,
            message: (refusal?.message ?? 'Not a product of ours').slice(0, 255),
          },
        );
        assertNoUserErrors(r.fulfillmentOrderRejectFulfillmentRequest, 'fulfillmentOrderRejectFulfillmentRequest');
        notes.push(`${fo.orderName} rejected (${reason})`);
      }
    }
    return notes.join('; ') || 'no fulfillment request waiting';
  });

  ops.handle('cancellation_requests', async ({ op, gql }) => {
    const notes: string[] = [];
    for (const fo of await assigned(gql, 'CANCELLATION_REQUESTED')) {
      const order = await deps.orders.findUpstream(db, op.store_id, numericId(fo.orderId));
      const result = order
        ? await deps.orders.cancelUpstream(op.organization_id, order.reference)
        : { canceled: true, reason: null };
      if (result.canceled) {
        const r: { fulfillmentOrderAcceptCancellationRequest: Payload } = await gql.request(
          D.ACCEPT_CANCELLATION_REQUEST,
          {
            id: fo.id,
            message: order ? `Order ${order.reference} canceled` : 'Nothing was made for this order',
          },
        );
        assertNoUserErrors(r.fulfillmentOrderAcceptCancellationRequest, 'fulfillmentOrderAcceptCancellationRequest');
        notes.push(`${fo.orderName} canceled`);
      } else {
        const r: { fulfillmentOrderRejectCancellationRequest: Payload } = await gql.request(
          D.REJECT_CANCELLATION_REQUEST,
          {
            id: fo.id,
            message: (result.reason ?? 'The order is in production').slice(0, 255),
          },
        );
        assertNoUserErrors(r.fulfillmentOrderRejectCancellationRequest, 'fulfillmentOrderRejectCancellationRequest');
        notes.push(`${fo.orderName} cancellation refused`);
      }
    }
    return notes.join('; ') || 'no cancellation request waiting';
  });

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
