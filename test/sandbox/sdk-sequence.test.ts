import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventObject, isStaleEvent } from '../../packages/sdk/src/index.ts';

describe('SDK: dropping stale events', () => {
  const ev = (type: string, sequence: number) => ({
    type,
    data: { [type.split('.')[0]]: { reference: 'Order_0123456789abcdefghjkmnpqrs' }, sequence },
  });
  it('names the object and its sequence', () => {
    assert.deepEqual(eventObject(ev('order.shipped', 4)), {
      kind: 'order',
      reference: 'Order_0123456789abcdefghjkmnpqrs',
      sequence: 4,
    });
    assert.deepEqual(eventObject({ type: 'claim.updated', data: { claim: { reference: 'Claim_x' }, sequence: 2 } }), {
      kind: 'claim',
      reference: 'Claim_x',
      sequence: 2,
    });
    assert.equal(
      eventObject({ type: 'webhook_endpoint.disabled', data: { webhookEndpoint: { reference: 'W_x' }, sequence: 1 } })
        ?.kind,
      'webhookEndpoint',
    );
    assert.equal(eventObject({ type: 'ping', data: { webhookEndpoint: { reference: 'W_x' } } }), null);
    assert.equal(eventObject({ type: 'order.created', data: { order: { reference: 'Order_x' } } }), null);
  });
  it('an event at or below the last applied sequence is stale', () => {
    assert.equal(isStaleEvent(ev('order.updated', 3), 4), true);
    assert.equal(isStaleEvent(ev('order.updated', 4), 4), true);
    assert.equal(isStaleEvent(ev('order.updated', 5), 4), false);
    assert.equal(isStaleEvent(ev('order.updated', 1), undefined), false);
  });
});
