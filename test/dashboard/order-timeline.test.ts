import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderTimeline, timelineHtml } from '../../src/modules/dashboard/order-timeline.ts';
import { textOf } from './helpers.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute));
const created = at(0);
const attempt = (job: number, n: number, minute: number, status: number | null, error: string | null = null) => ({
  jobId: job,
  attempt: n,
  at: at(minute),
  outcome: status !== null && status < 300 ? ('delivered' as const) : ('failed' as const),
  responseStatus: status,
  error,
  durationMs: 40 + n,
});
const job = (
  id: number,
  status: 'pending' | 'succeeded' | 'dead',
  attempts: number,
  minute: number,
  lastError: string | null = null,
) => ({
  id,
  status,
  attempts,
  lastError,
  runAt: at(minute),
  updatedAt: at(minute),
});
const text = (steps: ReturnType<typeof orderTimeline>) =>
  steps.map((s) => textOf(`${s.what} ${s.detail ?? ''}`).trim());

describe('order timeline data', () => {
  it('has one step per callback attempt, in time order with the events, coloured by outcome', () => {
    const steps = orderTimeline({
      created,
      events: [
        {
          reference: 'Event_1',
          type: 'order.updated',
          data: { order: { status: { code: 'in_production' } } },
          created: at(1),
          deliveries: [],
        },
      ],
      callbackJobs: [job(7, 'pending', 2, 20, 'the callback URL answered HTTP 500')],
      callbackAttempts: [
        attempt(7, 2, 7, null, 'timed out after 10000 ms'),
        attempt(7, 1, 2, 500, 'the callback URL answered HTTP 500'),
      ],
    });
    assert.deepEqual(
      steps.map((s) => [s.at.toISOString().slice(11, 16), s.tone ?? null]),
      [
        ['10:00', null],
        ['10:01', null],
        ['10:02', 'bad'],
        ['10:07', 'bad'],
        ['10:20', 'warn'],
      ],
    );
    assert.deepEqual(text(steps), [
      'Created',
      'Updated',
      'Callback to the store, attempt 1 HTTP 500 the callback URL answered HTTP 500 · 41 ms',
      'Callback to the store, attempt 2 no answer timed out after 10000 ms · 42 ms',
      'Callback to the store retrying next attempt; 2 attempts failed so far',
    ]);
  });

  it('marks a delivered attempt green and adds nothing for its finished job', () => {
    const steps = orderTimeline({
      created,
      events: [],
      callbackJobs: [job(3, 'succeeded', 1, 5)],
      callbackAttempts: [attempt(3, 1, 5, 204)],
    });
    assert.deepEqual(text(steps), ['Created', 'Callback to the store, attempt 1 HTTP 204 41 ms']);
    assert.equal(steps[1].tone, 'ok');
  });

  it('shows a callback the store had no URL for any more as not sent', () => {
    const steps = orderTimeline({
      created,
      events: [],
      callbackJobs: [job(4, 'succeeded', 1, 3)],
      callbackAttempts: [{ ...attempt(4, 1, 3, null, 'the store had no callback URL any more'), outcome: 'not_sent' }],
    });
    assert.deepEqual(text(steps), [
      'Created',
      'Callback to the store, attempt 1 not sent the store had no callback URL any more',
    ]);
    assert.equal(steps[1].tone, 'warn');
  });

  it('sums up a job whose attempts were never recorded one by one', () => {
    const steps = orderTimeline({
      created,
      events: [],
      callbackJobs: [job(1, 'succeeded', 3, 9), job(2, 'dead', 4, 30, 'could not connect to the callback URL')],
      callbackAttempts: [],
    });
    assert.deepEqual(text(steps), [
      'Created',
      'Callback to the store delivered 3 attempts',
      'Callback to the store given up 4 attempts; last error: could not connect to the callback URL',
    ]);
  });

  it('says so when nothing but the creation is known, and escapes error texts', () => {
    const alone = timelineHtml(orderTimeline({ created, events: [], callbackJobs: [], callbackAttempts: [] }));
    assert.match(textOf(alone.value), /Created Nothing else has happened to this order yet/);
    const busy = timelineHtml(
      orderTimeline({
        created,
        events: [],
        callbackJobs: [],
        callbackAttempts: [attempt(1, 1, 1, 502, '<script>x</script>')],
      }),
    );
    assert.doesNotMatch(busy.value, /Nothing else/);
    assert.doesNotMatch(busy.value, /<script>/);
    assert.match(busy.value, /<li class="bad"><time datetime="2026-11-02T10:01:00.000Z">/);
  });
});
