import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_TOKEN, type TestApp, call, createTestApp } from '../support/app.ts';

describe('GET /metrics (Prometheus text format, operator token)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: 'default=3/3600' } });
  });
  after(() => t?.close());

  const scrape = (token: string | null = OPERATOR_TOKEN) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('refuses scrapes without the operator token', async () => {
    for (const token of [null, 'wrong', `${OPERATOR_TOKEN}x`, '']) {
      const res = await scrape(token);
      assert.equal(res.statusCode, 401, res.body);
      const body = JSON.parse(res.body);
      assert.equal(body.code, 'unauthorized');
      assert.equal(typeof body.message, 'string');
    }
    const key = await call(t, 'GET', '/metrics', { headers: { authorization: `Bearer ${t.key}` } });
    assert.equal(key.statusCode, 401, 'an API key is not the operator token');
  });

  it('counts requests by route and status, their durations, and rate-limit refusals', async () => {
    for (let i = 0; i < 5; i++) await call(t, 'GET', '/v2/organization');
    await call(t, 'GET', '/v2/organization', { key: null });
    await call(t, 'GET', '/no-such-route', { key: null });
    const res = await scrape();
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    assert.match(text, /^http_requests_total\{method="GET",route="\/v2\/organization",status="200"\} 3$/m);
    assert.match(text, /^http_requests_total\{method="GET",route="\/v2\/organization",status="429"\} 2$/m);
    assert.match(text, /^http_requests_total\{method="GET",route="\/v2\/organization",status="401"\} 1$/m);
    assert.match(text, /^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    assert.match(text, /^rate_limit_refusals_total\{route="\/v2\/organization"\} 2$/m);
    assert.match(
      text,
      /^http_request_duration_seconds_bucket\{method="GET",route="\/v2\/organization",le="\+Inf"\} 6$/m,
    );
    assert.match(text, /^http_request_duration_seconds_count\{method="GET",route="\/v2\/organization"\} 6$/m);
    assert.match(text, /^jobs\{status="pending"\} \d+$/m);
    assert.match(text, /^jobs\{status="dead"\} \d+$/m);
    assert.match(text, /^database_up 1$/m);
    for (const gauge of ['process_resident_memory_bytes', 'nodejs_heap_used_bytes', 'nodejs_external_memory_bytes'])
      assert.ok(Number(new RegExp(`^${gauge} (\\d+)$`, 'm').exec(text)?.[1]) > 0, gauge);
    assert.match(text, /^nodejs_array_buffers_bytes \d+$/m);
    assert.match(text, /^nodejs_forced_collections_total\{where="threads"\} \d+$/m);
    assert.match(text, /^nodejs_forced_collections_total\{where="event_loop"\} \d+$/m);
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
      assert.match(line, /^[a-zA-Z_:][\w:]*(\{([a-z_]+="[^"]*",?)+\})? -?\d+(\.\d+)?(e[+-]?\d+)?$/, line);
    }
    // cumulative buckets never decrease
    const buckets = [
      ...text.matchAll(
        /^http_request_duration_seconds_bucket\{method="GET",route="\/v2\/organization",le="[^"]+"\} (\d+)$/gm,
      ),
    ].map((m) => Number(m[1]));
    assert.deepEqual(
      buckets,
      [...buckets].sort((a, b) => a - b),
    );
  });

  it('reflects the job queue', async () => {
    const { enqueue } = await import('../../src/platform/jobs/queue.ts');
    const before = Number(/^jobs\{status="pending"\} (\d+)$/m.exec((await scrape()).body)![1]);
    await t.db.tx((tx) => enqueue(tx, t.clock, 'reliability.noop', {}, { organizationId: null }));
    const after = Number(/^jobs\{status="pending"\} (\d+)$/m.exec((await scrape()).body)![1]);
    assert.equal(after, before + 1);
  });

  it('stays out of the OpenAPI document', async () => {
    const doc = (await call(t, 'GET', '/v2/openapi.json', { key: null })).data;
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('metrics')));
  });
});
