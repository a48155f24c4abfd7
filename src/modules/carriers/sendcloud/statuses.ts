import type { MappedStatus as TrackingStatus } from '../port.ts';

type Entry = { status: TrackingStatus | null; meaning: string };

/**
 * Sendcloud's numeric parcel status ids (`parcel.status.id` in the parcel-status webhook; the list
 * `GET /parcels/statuses` answers) → the service's tracking statuses. Statuses that say nothing
 * about the parcel's journey (ready to send, being announced, cancelled) map to null: they are
 * kept with the shipment and shown, never turned into tracking events. docs/carriers.md lists it.
 */
export const SENDCLOUD_STATUSES: Record<string, Entry> = {
  '1000': { status: null, meaning: 'Ready to send' },
  '1001': { status: null, meaning: 'Being announced' },
  '1002': { status: null, meaning: 'Announcement failed' },
  '1': { status: null, meaning: 'Announced' },
  '3': { status: 'in_transit', meaning: 'En route to sorting center' },
  '4': { status: 'in_transit', meaning: 'Delivery delayed' },
  '5': { status: 'in_transit', meaning: 'Sorted' },
  '6': { status: 'exception', meaning: 'Not sorted' },
  '7': { status: 'in_transit', meaning: 'Being sorted' },
  '8': { status: 'exception', meaning: 'Delivery attempt failed' },
  '11': { status: 'delivered', meaning: 'Delivered' },
  '12': { status: 'out_for_delivery', meaning: 'Awaiting customer pickup' },
  '13': { status: 'exception', meaning: 'Announced: not collected' },
  '15': { status: 'exception', meaning: 'Error collecting' },
  '22': { status: 'in_transit', meaning: 'Shipment picked up by driver' },
  '62': { status: 'exception', meaning: 'Unable to deliver' },
  '80': { status: 'exception', meaning: 'Unable to deliver' },
  '91': { status: 'in_transit', meaning: 'Parcel en route' },
  '92': { status: 'out_for_delivery', meaning: 'Driver en route' },
  '93': { status: 'delivered', meaning: 'Shipment collected by customer' },
  '94': { status: 'exception', meaning: 'No label' },
  '999': { status: 'exception', meaning: 'No label' },
  '1337': { status: null, meaning: "Unknown status: check the carrier's track and trace page" },
  '1998': { status: null, meaning: 'Cancelled upstream' },
  '1999': { status: null, meaning: 'Cancellation requested' },
  '2000': { status: null, meaning: 'Cancelled' },
  '2001': { status: null, meaning: 'Submitting cancellation request' },
  // API v3 names statuses by code (`parcel.status.code` of GET /shipments).
  READY_TO_SEND: { status: null, meaning: 'Ready to send' },
  ANNOUNCING: { status: null, meaning: 'Being announced' },
  ANNOUNCEMENT_FAILED: { status: null, meaning: 'Announcement failed' },
  CANCELLED: { status: null, meaning: 'Cancelled' },
  EN_ROUTE_TO_SORTING_CENTER: { status: 'in_transit', meaning: 'En route to sorting center' },
  SORTED: { status: 'in_transit', meaning: 'Sorted' },
  OUT_FOR_DELIVERY: { status: 'out_for_delivery', meaning: 'Out for delivery' },
  DELIVERY_ATTEMPT_FAILED: { status: 'exception', meaning: 'Delivery attempt failed' },
  DELIVERED: { status: 'delivered', meaning: 'Delivered' },
  RETURNED_TO_SENDER: { status: 'returned', meaning: 'Returned to sender' },
};

/**
 * Sendcloud's parent statuses by name, as sendcloud.dev's "Tracking statuses" page defines them:
 * the status `message` Sendcloud sends with an id the table above does not know (carriers' newer
 * milestones, such as a return to sender) still maps by what it says.
 */
export const SENDCLOUD_PARENT_STATUSES: Record<string, TrackingStatus | null> = {
  'address invalid': 'exception',
  announced: null,
  'announced: not collected': 'exception',
  'announcement failed': null,
  'at customs': 'in_transit',
  'at sorting centre': 'in_transit',
  'awaiting customer pickup': 'out_for_delivery',
  'being announced': null,
  'being sorted': 'in_transit',
  'cancellation request': null,
  cancelled: null,
  'cancelled upstream': null,
  delivered: 'delivered',
  'delivery address changed': 'in_transit',
  'delivery attempt failed': 'exception',
  'delivery date changed': 'in_transit',
  'delivery delayed': 'in_transit',
  'delivery method changed': 'in_transit',
  'driver en route': 'out_for_delivery',
  exception: 'exception',
  'en route to sorting center': 'in_transit',
  'parcel en route': 'in_transit',
  'ready to send': null,
  'refused by recipient': 'exception',
  'returned to sender': 'returned',
  'shipment collected by customer': 'delivered',
  'shipment picked up by driver': 'in_transit',
  sorted: 'in_transit',
  'unable to deliver': 'exception',
};

/**
 * The tracking status a Sendcloud status means, or null (kept, shown, not a tracking event): by
 * its id or v3 code first, else by its parent status name.
 */
export function mapSendcloudStatus(code: string, message?: string | null): TrackingStatus | null {
  const known = SENDCLOUD_STATUSES[code];
  if (known) return known.status;
  return SENDCLOUD_PARENT_STATUSES[(message ?? '').trim().toLowerCase()] ?? null;
}
