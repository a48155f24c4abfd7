import type { Flow } from './recorder.ts';

/** Test clocks, last of all: advancing one moves this organization's time for every later request. */
export async function captureTestClock({ r }: Flow): Promise<void> {
  await r.send('testGetClock', 'GET', '/v2/test-helpers/clock', {}, 200);
  await r.send('testGetClock', 'GET', '/v2/test-helpers/clock', { key: null }, 401);
  const advance = (clock: Record<string, string>) => ({ body: { clock } });
  await r.send('testAdvanceClock', 'POST', '/v2/test-helpers/clock/advance', advance({ advanceBy: 'P1D' }), 200);
  await r.send(
    'testAdvanceClock',
    'POST',
    '/v2/test-helpers/clock/advance',
    advance({ to: '2020-01-01T00:00:00Z' }),
    400,
  );
  await r.send('testDeleteClock', 'DELETE', '/v2/test-helpers/clock', {}, 204);
  await r.send('testDeleteClock', 'DELETE', '/v2/test-helpers/clock', { key: null }, 401);
}
