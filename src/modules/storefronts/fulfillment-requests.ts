import { ApiError } from '../../platform/errors.ts';
import type { StorefrontsDeps } from './deps.ts';
import type { Operations } from './operations.ts';
import { storefrontsRepo as repo } from './repo.ts';
import { type ShopifyGraphql, type UserErrorsPayload as Payload, assertNoUserErrors } from './shopify/client.ts';
import * as D from './shopify/documents.ts';
import { addressOf, numericId, ourLines, shippingLevelOf } from './shopify/mapping.ts';

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

/** An order from a fulfillment order whose Shopify order the service has not seen yet. */
async function orderFromRequest(
  deps: StorefrontsDeps,
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

/**
 * Shopify's requests to the fulfillment service: fulfillment requests are taken as orders (or
 * rejected with Shopify's reason), cancellation requests cancel what is not in production yet.
 */
export function requestHandlers(deps: StorefrontsDeps, ops: Operations) {
  const { db } = deps;

  ops.handle('fulfillment_requests', async ({ op, gql }) => {
    const notes: string[] = [];
    for (const fo of await assigned(gql, 'FULFILLMENT_REQUESTED')) {
      const upstreamId = numericId(fo.orderId);
      let order = await deps.orders.findUpstream(db, op.store_id, upstreamId);
      let refusal: ApiError | null = null;
      if (!order) {
        // The request came before orders/create (or instead of it): the order is made from the
        // fulfillment order itself, and orders/create finds it taken (one order per Shopify order).
        const made = await orderFromRequest(deps, op.organization_id, op.store_id, fo);
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
}
