import type { Static } from 'typebox';
import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '../../platform/db/index.ts';
import { ApiError, badRequest } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { type Address, isPackstation, validateAddress } from '../shipping/address.ts';
import { type ShippingLevel, parcelOf, shippingOptions } from '../shipping/data.ts';
import type { OrdersDeps } from './deps.ts';
import type { orderIntake } from './intake.ts';
import type { OrderlineRow } from './repo.ts';
import type { CreateOrderBody } from './schemas.ts';
import type { orderWriter } from './writer.ts';

type OrderIntake = ReturnType<typeof orderIntake>;
type OrderWriter = ReturnType<typeof orderWriter>;
type OrderInput = Static<typeof CreateOrderBody>['order'];

/** What creating an order is given by the service. */
export interface CreateContext {
  deps: OrdersDeps;
  intake: OrderIntake;
  writer: OrderWriter;
  /** Throws `custom_identifier_in_use` naming the order that has the identifier. */
  assertIdentifierFree: (orgId: string, customIdentifier: string) => Promise<void>;
}

/** A print product's line names an image of the organization; any other line names none. */
async function checkImages(
  deps: OrdersDeps,
  orgId: string,
  input: OrderInput,
  products: Array<{ printable: boolean; name: string }>,
  f: string,
): Promise<void> {
  const images = await deps.images.imagesForOrganization(
    orgId,
    input.orderlines.flatMap((l) => (l.imageReference === undefined ? [] : [l.imageReference])),
  );
  for (const [i, l] of input.orderlines.entries()) {
    const field = `${f}.orderlines[${i}].imageReference`;
    if (products[i].printable && l.imageReference === undefined)
      throw new ApiError('missing_image_reference', `${field} is required: ${products[i].name} is a print product`);
    if (!products[i].printable && l.imageReference !== undefined)
      throw badRequest(`${field} must be left out: ${products[i].name} is not a print product`);
    if (l.imageReference !== undefined && !images.has(l.imageReference))
      throw badRequest(`${field} is not an image of this organization`);
  }
}

/** The order's brand (the store's default unless named) and its preferred packaging, if any. */
async function brandAndPackaging(
  deps: OrdersDeps,
  orgId: string,
  defaultBrandId: string | null,
  input: OrderInput,
  f: string,
): Promise<{ brandId: string | null; packagingId: string | null }> {
  let brandId = defaultBrandId;
  if (input.brandReference !== undefined) {
    const brand = isReference('Brand', input.brandReference)
      ? await deps.organization.findBrand(orgId, input.brandReference)
      : null;
    if (!brand) throw badRequest(`${f}.brandReference is not a brand of this organization`);
    brandId = brand.reference;
  }
  let packagingId: string | null = null;
  if (input.preferredPackagingReference !== undefined) {
    const p = isReference('Packaging', input.preferredPackagingReference)
      ? await deps.catalog.packagingForOrganization(orgId, input.preferredPackagingReference)
      : null;
    if (!p) throw badRequest(`${f}.preferredPackagingReference is not a packaging available to this organization`);
    packagingId = p.reference;
  }
  return { brandId, packagingId };
}

/** The level and price a dropship order gets: the first that `shippingOptions` offers from the level asked for. */
function dropshipShipping(
  lines: OrderlineRow[],
  address: Address,
  input: OrderInput,
  f: string,
): { level: ShippingLevel; shippingCents: number } {
  const chosen = shippingOptions(
    parcelOf(lines, address.countryCode!, isPackstation(address)),
    input.dropshipMinimalShippingLevel ?? 'basic',
  )[0];
  if (!chosen)
    throw badRequest(`${f}.dropshipAddress: no shipping level can carry this order to ${address.countryCode}`);
  return { level: chosen.level, shippingCents: chosen.price };
}

/**
 * A new order: its store, lines, images, brand, packaging and shipping checked, then written in
 * one transaction. `viaStoreCode`: the integrator code of the key that creates the order, if any.
 */
export async function createOrder(
  ctx: CreateContext,
  orgId: string,
  body: Static<typeof CreateOrderBody>,
  viaStoreCode: string | null = null,
  /** An order taken from the store's upstream platform (storefronts module): the API's store rule does not apply. */
  upstream: { id: string; name: string } | null = null,
): Promise<{ reference: string }> {
  const { deps, intake, writer } = ctx;
  const input = body.order;
  const f = 'body.order';
  const store = await intake.store(orgId, input, f, upstream !== null);
  let address: Address | null = null;
  if (input.shippingKind === 'dropship') address = validateAddress(input.dropshipAddress!, `${f}.dropshipAddress`);
  else if (!store.combinedAddress)
    throw badRequest(`${f}.shippingKind: store ${store.code} has no combined address; use dropship`);

  const products = await intake.checkProducts(orgId, input.orderlines, `${f}.orderlines`);
  await checkImages(deps, orgId, input, products, f);
  const { brandId, packagingId } = await brandAndPackaging(deps, orgId, store.defaultBrandId, input, f);

  const id = newReference('Order');
  const lines: OrderlineRow[] = input.orderlines.map((l, i) => ({
    order_id: id,
    line_index: i + 1,
    product_id: l.productReference,
    image_id: l.imageReference ?? null,
    quantity: l.quantity,
    canceled_quantity: 0,
    shipped_quantity: 0,
    annotations: (l.annotations ?? []).map((a) => ({ key: a.key, value: a.value })),
    unit_price_cents: products[i].priceCents,
    unit_weight_grams: products[i].weightGrams,
    awaiting_launch: products[i].status === 'prelaunched',
  }));
  const { level, shippingCents } = address
    ? dropshipShipping(lines, address, input, f)
    : { level: null, shippingCents: 0 };

  const now = deps.clock.now();
  const addressRow = address
    ? { id: newReference('Address'), organization_id: orgId, fields: address, created_at: now }
    : undefined;
  try {
    await writer.write({
      order: {
        id,
        organization_id: orgId,
        store_id: store.id,
        shipping_kind: input.shippingKind,
        custom_identifier: input.customIdentifier ?? null,
        dropship_address_id: addressRow?.id ?? null,
        minimal_shipping_level:
          input.shippingKind === 'dropship' ? (input.dropshipMinimalShippingLevel ?? 'basic') : null,
        shipping_level: level,
        brand_id: brandId,
        packaging_id: packagingId,
        status: lines.some((l) => l.awaiting_launch) ? 'preorder' : 'pending',
        status_modified_at: now,
        shipping_cents: shippingCents,
        shipment_id: null,
        replacement_for_claim_id: null,
        replaces_order_id: null,
        via_store_code: viaStoreCode,
        upstream_order_id: upstream?.id ?? null,
        upstream_order_name: upstream?.name ?? null,
        created_at: now,
      },
      lines,
      address: addressRow,
      storeCode: store.code,
    });
  } catch (err) {
    // A customIdentifier already in use (also by a create racing this one): the unique index
    // decides, and the order it names is looked up only then. Its order number stays unused.
    if (
      pgErrorCode(err) === PG_UNIQUE_VIOLATION &&
      pgConstraint(err) !== 'orders_store_number' &&
      input.customIdentifier !== undefined
    ) {
      await ctx.assertIdentifierFree(orgId, input.customIdentifier);
    }
    throw err;
  }
  return { reference: id };
}
