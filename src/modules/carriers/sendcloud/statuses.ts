import type { MappedStatus as TrackingStatus } from '../port.ts';

/**
 * Sendcloud parcel status ids (`parcel.status.id` in the parcel-status webhook) → the service's
 * tracking statuses. Statuses that say nothing about the parcel's journey (announced, ready to
 * send, cancelled) map to null: they are kept with the shipment and shown, never turned into
 * tracking events. Any id not in this table is kept the same way. docs/carriers.md lists it.
 */
export const SENDCLOUD_STATUSES: Record<string, { status: TrackingStatus | null; meaning: string }> = {
  '1000': { status: null, meaning: 'Ready to send' },
  '1': { status: null, meaning: 'Announced' },
  '2000': { status: null, meaning: 'Cancelled' },
  '1999': { status: null, meaning: 'Cancellation requested' },
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
  '95': { status: 'returned', meaning: 'Returned to sender' },
  '99': { status: 'exception', meaning: 'Exception' },
  // API v3 names the same statuses by code (`parcel.status.code` of GET /shipments).
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

/** The tracking status a Sendcloud status id means, or null (kept, shown, not a tracking event). */
export const mapSendcloudStatus = (code: string): TrackingStatus | null => SENDCLOUD_STATUSES[code]?.status ?? null;
