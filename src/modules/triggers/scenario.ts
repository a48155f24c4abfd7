import sharp from 'sharp';
import { ApiError, conflict } from '../../platform/errors.ts';

/** One call of the partner API as the caller (same key, same rules); answers status and JSON. */
export type ApiCall = (
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
) => Promise<{ status: number; data: any }>;

export const TRIGGERABLE = [
  'order.created',
  'order.updated',
  'order.shipped',
  'shipment.created',
  'shipment.tracking_updated',
  'shipment.delivered',
  'claim.created',
  'claim.updated',
] as const;
export type Triggerable = (typeof TRIGGERABLE)[number];

const ADDRESS = {
  firstname: 'Sam',
  lastname: 'Sandbox',
  streetname: 'Keizersgracht',
  housenumber: '123',
  zipcode: '1015 CJ',
  city: 'Amsterdam',
  countryCode: 'NL',
  email: 'sam.sandbox@example.com',
};

/** A step that must work for the event to happen; anything else is the organization's setup. */
async function must(call: ApiCall, what: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const res = await call(method, path, body);
  if (res.status >= 300) {
    const reason = res.data?.message ?? `HTTP ${res.status}`;
    throw conflict('trigger_failed', `Could not ${what}: ${reason}`);
  }
  return res.data;
}

/** A small artwork: a diagonal two-colour gradient, so renders and print files show something. */
async function artwork(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff7a59"/><stop offset="1" stop-color="#2d6cdf"/></linearGradient></defs><rect width="600" height="600" fill="url(#g)"/><circle cx="300" cy="300" r="140" fill="#fff" fill-opacity=".85"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * Makes `type` really happen on new test objects of the caller's organization, through the same
 * API calls an integrator would make (so every rule, callback and webhook runs as usual).
 * Returns the references of what it created.
 */
export interface Created {
  image: string;
  order: string;
  shipment?: string;
  claim?: string;
}

export async function runTrigger(call: ApiCall, type: Triggerable, now: Date): Promise<Created> {
  const out = {} as Created;
  const stores = (await must(call, 'list the stores', 'GET', '/v2/stores?limit=100')).stores as any[];
  const store = stores.find((s) => s.integration === 'api');
  if (!store) throw conflict('trigger_failed', 'The organization has no store with integration `api` to order through');
  const products = (await must(call, 'list the products', 'GET', '/v2/products?limit=100')).products as any[];
  const product = products.find((p) => p.printable && p.status === 'launched');
  if (!product) throw conflict('trigger_failed', 'The organization sees no launched print product to order');

  const image = await call('POST', '/v2/images', await artwork());
  if (image.status !== 200) throw conflict('trigger_failed', `Could not upload the artwork: ${image.data?.message}`);
  out.image = image.data.image.reference;
  const order = await must(call, 'create the order', 'POST', '/v2/orders', {
    order: {
      storeReference: store.reference,
      shippingKind: 'dropship',
      dropshipAddress: ADDRESS,
      dropshipMinimalShippingLevel: 'tracked',
      orderlines: [{ productReference: product.reference, imageReference: out.image, quantity: 2 }],
    },
  });
  out.order = order.order.reference;
  if (type === 'order.created') return out;
  if (type === 'order.updated') {
    await must(call, 'cancel a line', 'POST', `/v2/orders/${out.order}/cancel`, {
      orderlines: [{ index: 1, canceledQuantity: 1 }],
    });
    return out;
  }

  await must(call, 'start production', 'POST', `/v2/test-helpers/orders/${out.order}/start-production`);
  // Shipped ten days ago, so a claim may be filed at once.
  const shippedAt = new Date(now.getTime() - 10 * 86_400_000).toISOString();
  const shipment = await must(call, 'ship the order', 'POST', '/v2/test-helpers/shipments', {
    shipment: { orderReferences: [out.order], shippedAt },
  });
  out.shipment = shipment.shipment.reference;
  if (type === 'order.shipped' || type === 'shipment.created') return out;

  if (type === 'shipment.tracking_updated' || type === 'shipment.delivered') {
    const steps = type === 'shipment.delivered' ? ['in_transit', 'out_for_delivery', 'delivered'] : ['in_transit'];
    await must(call, 'add tracking events', 'POST', `/v2/test-helpers/shipments/${out.shipment}/tracking-events`, {
      trackingEvents: steps.map((status) => ({ status, location: 'Amsterdam, NL' })),
    });
    return out;
  }

  const categories = (await must(call, 'list claim categories', 'GET', '/v2/claimcategories')).claimcategories as any[];
  const category = categories.find((c) => !c.evidenceRequired && !/package missing/i.test(c.name));
  if (!category) throw new ApiError('trigger_failed', 'No claim category without required evidence');
  const claim = await must(call, 'file a claim', 'POST', '/v2/claim-item-issues', {
    claim: {
      shipmentReference: out.shipment,
      orderReference: out.order,
      comment: 'Triggered from the sandbox',
      claimlines: [
        { orderlineIndex: 1, quantity: 1, claimcategoryReference: category.reference, evidenceReferences: [] },
      ],
    },
  });
  out.claim = claim.claim.reference;
  if (type === 'claim.updated') {
    await must(call, 'decide the claim', 'POST', `/v2/test-helpers/claims/${out.claim}/decide`, {
      decision: {
        status: 'resolved',
        refundShippingCosts: false,
        comment: 'Refunded by the sandbox trigger',
        claimlines: [
          { orderlineIndex: 1, replacementQuantity: 0, refundQuantity: 1, rejectionQuantity: 0, comment: 'ok' },
        ],
      },
    });
  }
  return out;
}
