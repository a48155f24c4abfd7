import type { MappedStatus as TrackingStatus } from '../port.ts';

type Entry = { status: TrackingStatus | null; meaning: string };

const IN_TRANSIT = 'in_transit';
const OUT = 'out_for_delivery';
const DELIVERED = 'delivered';
const EXCEPTION = 'exception';

/**
 * Sendcloud's parcel statuses → the service's tracking statuses, by numeric id (`parcel.status.id`
 * in the parcel-status webhook, the id list GET /api/v2/parcels/statuses answers) and by API v3
 * code (`parcel.status.code` in GET /shipments, the codes GET /api/v3/parcels/statuses answers).
 * Statuses that say nothing about the parcel's journey (ready to send, being announced, cancelled)
 * map to null: they are kept with the shipment and shown, never turned into tracking events.
 * docs/carriers.md lists the table and where each id and code comes from.
 */
export const SENDCLOUD_STATUSES: Record<string, Entry> = {
  '1': { status: null, meaning: 'Announced' },
  '3': { status: IN_TRANSIT, meaning: 'En route to sorting center' },
  '4': { status: IN_TRANSIT, meaning: 'Delivery delayed' },
  '5': { status: IN_TRANSIT, meaning: 'Sorted' },
  '6': { status: EXCEPTION, meaning: 'Not sorted' },
  '7': { status: IN_TRANSIT, meaning: 'Being sorted' },
  '8': { status: EXCEPTION, meaning: 'Delivery attempt failed' },
  '11': { status: DELIVERED, meaning: 'Delivered' },
  '12': { status: OUT, meaning: 'Awaiting customer pickup' },
  '13': { status: EXCEPTION, meaning: 'Announced: not collected' },
  '15': { status: EXCEPTION, meaning: 'Error collecting' },
  '22': { status: IN_TRANSIT, meaning: 'Shipment picked up by driver' },
  '80': { status: EXCEPTION, meaning: 'Unable to deliver' },
  '91': { status: IN_TRANSIT, meaning: 'Parcel en route' },
  '92': { status: OUT, meaning: 'Driver en route' },
  '93': { status: DELIVERED, meaning: 'Shipment collected by customer' },
  '94': { status: null, meaning: 'Parcel cancellation failed.' },
  '999': { status: EXCEPTION, meaning: 'No label' },
  '1000': { status: null, meaning: 'Ready to send' },
  '1001': { status: null, meaning: 'Being announced' },
  '1002': { status: null, meaning: 'Announcement failed' },
  '1337': { status: null, meaning: 'Unknown status - check carrier track & trace page for more insights' },
  '1998': { status: null, meaning: 'Cancelled upstream' },
  '1999': { status: null, meaning: 'Cancellation requested' },
  '2000': { status: null, meaning: 'Cancelled' },
  '2001': { status: null, meaning: 'Submitting cancellation request' },
  '62989': { status: IN_TRANSIT, meaning: 'At Customs' },
  '62990': { status: IN_TRANSIT, meaning: 'At sorting centre' },
  '62991': { status: EXCEPTION, meaning: 'Refused by recipient' },
  '62992': { status: 'returned', meaning: 'Returned to sender' },
  '62993': { status: IN_TRANSIT, meaning: 'Delivery method changed' },
  '62994': { status: IN_TRANSIT, meaning: 'Delivery date changed' },
  '62995': { status: IN_TRANSIT, meaning: 'Delivery address changed' },
  '62996': { status: EXCEPTION, meaning: 'Exception' },
  '62997': { status: EXCEPTION, meaning: 'Address invalid' },
  READY_TO_SEND: { status: null, meaning: 'Ready to send' },
  ANNOUNCING: { status: null, meaning: 'Being announced' },
  ANNOUNCED: { status: null, meaning: 'Announced' },
  ANNOUNCED_UNCOLLECTED: { status: EXCEPTION, meaning: 'Announced: not collected' },
  ANNOUNCEMENT_FAILED: { status: null, meaning: 'Announcement failed' },
  NO_LABEL: { status: EXCEPTION, meaning: 'No label' },
  PICKED_UP_BY_DRIVER: { status: IN_TRANSIT, meaning: 'Shipment picked up by driver' },
  COLLECT_ERROR: { status: EXCEPTION, meaning: 'Error collecting' },
  TO_SORTING: { status: IN_TRANSIT, meaning: 'En route to sorting center' },
  AT_SORTING_CENTRE: { status: IN_TRANSIT, meaning: 'At sorting centre' },
  SORTING: { status: IN_TRANSIT, meaning: 'Being sorted' },
  SORTED: { status: IN_TRANSIT, meaning: 'Sorted' },
  UNSORTED: { status: EXCEPTION, meaning: 'Not sorted' },
  AT_CUSTOMS: { status: IN_TRANSIT, meaning: 'At Customs' },
  SHIPMENT_ON_ROUTE: { status: IN_TRANSIT, meaning: 'Parcel en route' },
  DRIVER_ON_ROUTE: { status: OUT, meaning: 'Driver en route' },
  DELAYED: { status: IN_TRANSIT, meaning: 'Delivery delayed' },
  DELIVERY_DATE_CHANGED: { status: IN_TRANSIT, meaning: 'Delivery date changed' },
  DELIVERY_ADDRESS_CHANGED: { status: IN_TRANSIT, meaning: 'Delivery address changed' },
  DELIVERY_METHOD_CHANGED: { status: IN_TRANSIT, meaning: 'Delivery method changed' },
  AWAITING_CUSTOMER_PICKUP: { status: OUT, meaning: 'Awaiting customer pickup' },
  COLLECTED_BY_CUSTOMER: { status: DELIVERED, meaning: 'Shipment collected by customer' },
  DELIVERED: { status: DELIVERED, meaning: 'Delivered' },
  DELIVERY_FAILED: { status: EXCEPTION, meaning: 'Delivery attempt failed' },
  UNDELIVERABLE: { status: EXCEPTION, meaning: 'Unable to deliver' },
  REFUSED_BY_RECIPIENT: { status: EXCEPTION, meaning: 'Refused by recipient' },
  RETURNED_TO_SENDER: { status: 'returned', meaning: 'Returned to sender' },
  ADDRESS_INVALID: { status: EXCEPTION, meaning: 'Address invalid' },
  CANCELLING: { status: null, meaning: 'Cancellation requested' },
  CANCELLING_UPSTREAM: { status: null, meaning: 'Submitting cancellation request' },
  CANCELLED: { status: null, meaning: 'Cancelled' },
  CANCELLED_UPSTREAM: { status: null, meaning: 'Cancelled upstream' },
  CANCELLATION_FAILED: { status: null, meaning: 'Parcel cancellation failed.' },
  EXCEPTION: { status: EXCEPTION, meaning: 'Exception' },
  UNKNOWN: { status: null, meaning: 'Unknown status - check carrier track & trace page for more insights' },
};

/**
 * The status names alone, as sendcloud.dev's "Tracking statuses" page defines Sendcloud's parent
 * statuses: a status whose id or code the table above does not know (one Sendcloud adds later)
 * still maps by its message.
 */
export const SENDCLOUD_PARENT_STATUSES: Record<string, TrackingStatus | null> = Object.fromEntries([
  ...Object.values(SENDCLOUD_STATUSES).map((e) => [e.meaning.toLowerCase().replace(/\.$/, ''), e.status]),
  ['cancellation request', null],
]);

/**
 * The tracking status a Sendcloud status means, or null (kept, shown, not a tracking event): by
 * its id or v3 code first, else by its name.
 */
export function mapSendcloudStatus(code: string, message?: string | null): TrackingStatus | null {
  const known = SENDCLOUD_STATUSES[code.trim().toUpperCase()];
  if (known) return known.status;
  return SENDCLOUD_PARENT_STATUSES[(message ?? '').trim().toLowerCase().replace(/\.$/, '')] ?? null;
}
