import type { Form } from './helpers.ts';

/**
 * The decision form of a claim with one line, orderline 1: how many of it are replaced, refunded
 * and rejected, with the line's order when given, and any further fields (comments).
 */
export function claimDecision(
  [replace, refund, reject]: [number, number, number],
  orderReference?: string,
  more: Form = {},
): Form {
  return {
    'line.0.orderlineIndex': '1',
    ...(orderReference ? { 'line.0.orderReference': orderReference } : {}),
    'line.0.replacementQuantity': String(replace),
    'line.0.refundQuantity': String(refund),
    'line.0.rejectionQuantity': String(reject),
    ...more,
  };
}
