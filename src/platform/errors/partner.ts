import type { ErrorSpec } from './groups.ts';

/** Codes of the partner API's areas: images, orders, claims, rendering, webhooks and the test helpers. */
export const PARTNER_ERRORS = {
  // ---- images and evidence ----
  invalid_image: {
    status: 400,
    group: 'images',
    description: 'not a decodable JPEG or PNG (GIF, WebP, SVG, text, truncated, empty), or more than 150 megapixels',
  },

  // ---- orders, quote, addresses ----
  missing_address: {
    status: 400,
    group: 'orders',
    description: 'a dropship order or quote without `dropshipAddress`',
  },
  missing_image_reference: {
    status: 400,
    group: 'orders',
    description: "a print product's orderline without `imageReference`",
  },
  invalid_address: {
    status: 400,
    group: 'orders',
    description:
      'a required address field missing, an unknown country code, a bad e-mail or phone number, a field over the carrier label length, a field in a script the label cannot print (Arabic, Hebrew, Thai, Indic…: Latin, Greek, Cyrillic, Chinese, Japanese and Korean print)',
  },
  invalid_address_missing_email: { status: 400, group: 'orders', description: 'the address has no `email`' },
  invalid_address_denied_country: {
    status: 400,
    group: 'orders',
    description: 'the destination country is denied (`RU`, `BY`, `KP`, `IR`, `SY`, `CU`)',
  },
  product_not_orderable: {
    status: 400,
    group: 'orders',
    description: 'a product that is `announced`, `ended`, `archived` or not in your catalog',
  },
  store_not_writable_via_api: {
    status: 403,
    group: 'orders',
    description: "the store's integration is not `api` (Shopify etc.): create, cancel and change its orders there",
  },
  custom_identifier_in_use: {
    status: 409,
    group: 'orders',
    description: 'another order of the organization has this `customIdentifier`; the message names it',
  },
  canceled_quantity_below_current: {
    status: 409,
    group: 'orders',
    description: "cancel asks for less than the line's current canceled quantity",
  },
  canceled_quantity_exceeds_shippable: {
    status: 409,
    group: 'orders',
    description: 'cancel asks for more than quantity − shipped quantity',
  },
  already_in_production: { status: 409, group: 'orders', description: 'cancel of an order in production' },
  insufficient_balance: {
    status: 409,
    group: 'orders',
    description:
      "a prepaid account's balance does not cover the order when it would go into production; the order stays `pending` until the account is topped up",
  },
  order_completed: {
    status: 409,
    group: 'orders',
    description: 'address change of an order whose lines are all shipped or canceled',
  },
  order_not_dropship: { status: 409, group: 'orders', description: 'address change of a combined order' },
  replacement_address_locked: {
    status: 409,
    group: 'orders',
    description: 'address change of a replacement order',
  },

  // ---- claims ----
  order_not_in_shipment: {
    status: 400,
    group: 'claims',
    description: 'item-issues claim: the order was not shipped in the shipment',
  },
  orderline_not_in_shipment: {
    status: 400,
    group: 'claims',
    description: 'item-issues claim: an `orderlineIndex` that is not a shipped line of the order',
  },
  package_missing_category_not_allowed: {
    status: 400,
    group: 'claims',
    description: "item-issues claim with the 'Package missing' category",
  },
  evidence_required: {
    status: 400,
    group: 'claims',
    description: 'the category needs evidence and the line has none',
  },
  too_many_evidence_references: {
    status: 400,
    group: 'claims',
    description: 'more than 3 evidence references on a line or a package-missing claim',
  },
  evidence_not_found: {
    status: 400,
    group: 'claims',
    description:
      "an evidence reference that is unknown, another organization's, or older than 1 day and unused (deleted)",
  },
  evidence_already_used: {
    status: 400,
    group: 'claims',
    description: 'evidence already attached to a claim, or listed twice',
  },
  claimed_quantity_exceeds_shipped: {
    status: 400,
    group: 'claims',
    description: 'quantity plus what is under pending claims is more than shipped',
  },
  shipment_too_recent: {
    status: 409,
    group: 'claims',
    description: 'package-missing before the delivery window has passed; the message gives the first date',
  },
  warranty_expired: { status: 409, group: 'claims', description: '100 days after the shipment left' },
  shipment_delivered: {
    status: 409,
    group: 'claims',
    description:
      'package-missing on a shipment the carrier reported delivered; the message gives the delivery date (an item-issues claim is still possible)',
  },
  shipment_already_claimed: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment that already has a (not retracted) claim',
  },
  order_already_replaced: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment whose order already has a replacement',
  },
  shipment_empty: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment that carried no items',
  },
  claim_not_pending: {
    status: 409,
    group: 'claims',
    description: 'retract (or decide) a claim that is not pending',
  },

  // ---- rendering ----
  composition_unavailable: {
    status: 410,
    group: 'rendering',
    description: 'the composition was retired (lookup, `GET /compositions/{ref}`, `POST /renders`)',
  },
  rendertoken_limit_exceeded: {
    status: 429,
    group: 'rendering',
    description:
      "the week's rendertokens do not cover the composition's `tokenCost`; `Retry-After` = seconds until Monday 00:00 Europe/Amsterdam",
  },
  render_failed: {
    status: 409,
    group: 'rendering',
    description: 'download of a render that failed (`failureReason` in the render)',
  },
  service_busy: {
    status: 503,
    group: 'rendering',
    description:
      '`POST /renders/preview`: the node is composing as many previews as it takes (`Retry-After: 1`); `POST /images` and claim evidence: the image could not be decoded within 120 s on a busy node (`Retry-After: 30`)',
  },
  photo_scene_corners_invalid: {
    status: 400,
    group: 'rendering',
    description:
      '`POST /photo-scenes`: the four corners do not form a convex quadrilateral in the order topLeft, topRight, bottomRight, bottomLeft (sides that cross, a corner turned inwards, anticlockwise, or a side under 48 px)',
  },
  photo_scene_corners_outside: {
    status: 400,
    group: 'rendering',
    description:
      '`POST /photo-scenes`: a corner lies outside the photo (pixels of the image as stored, 0..width, 0..height)',
  },
  photo_scene_photo_too_small: {
    status: 400,
    group: 'rendering',
    description:
      "`POST /photo-scenes` and the dashboard's photo upload: the photo is under 1000 px on its long edge, the smallest perspective a scene offers",
  },

  // ---- webhooks ----
  webhook_endpoint_limit_reached: { status: 409, group: 'webhooks', description: 'creating a 51st endpoint' },
  webhook_endpoint_deleted: {
    status: 409,
    group: 'webhooks',
    description: 'resending a delivery whose endpoint was deleted',
  },
  webhook_endpoint_disabled: {
    status: 409,
    group: 'webhooks',
    description: 'resending to a disabled endpoint (enable it first)',
  },

  // ---- test helpers ----
  order_not_pending: {
    status: 409,
    group: 'testHelpers',
    description: 'start production of an order that is not `pending` or `preorder`',
  },
  order_not_in_production: {
    status: 409,
    group: 'testHelpers',
    description: 'ship an order that is not `in_production`',
  },
  store_has_no_combined_address: {
    status: 409,
    group: 'testHelpers',
    description: 'ship combined orders of a store without a combined address',
  },
  decision_quantity_mismatch: {
    status: 400,
    group: 'testHelpers',
    description: "a decided line's replacement + refund + rejection is not the claimed quantity",
  },
  tracking_event_before_shipment: {
    status: 400,
    group: 'testHelpers',
    description: "a tracking event's `occurred` lies before the shipment left",
  },
  shipment_not_tracked: {
    status: 409,
    group: 'testHelpers',
    description: 'tracking events for a basic shipment (no carrier tracking)',
  },
  clock_backwards: {
    status: 400,
    group: 'testHelpers',
    description: 'moving the test clock to a time before its own',
  },
  clock_out_of_range: {
    status: 400,
    group: 'testHelpers',
    description: 'moving the test clock more than 1000 years past real time',
  },
  trigger_failed: {
    status: 409,
    group: 'testHelpers',
    description:
      'an event trigger could not create what the event needs (no API store, no launched print product); the message names the step',
  },
} as const satisfies Record<string, ErrorSpec>;
