import { isPackstation, validateAddress } from './address.ts';
import { deliveryWindow } from './data.ts';

export type ShippingService = ReturnType<typeof shippingService>;

/**
 * The shipping rules other modules need as a service (claims: delivery windows). Orders use the
 * rules of address.ts and data.ts directly: they are pure functions of the shipping data.
 */
export function shippingService() {
  return { deliveryWindow, validateAddress, isPackstation };
}
