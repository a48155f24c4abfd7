import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { type TestApp, call, createTestApp } from '../support/app.ts';

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    t = await createTestApp();
    doc = (await call(t, 'GET', '/v2/openapi.json', { key: null })).data;
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  });

  it('gives every operation an operationId, tags, a summary and its error responses', () => {
    const ids = new Set<string>();
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      assert.ok(path.startsWith('/v2/'), path);
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations++;
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(op.operationId, `${where} has an operationId`);
        assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
        assert.ok(op.tags?.length, `${where} has tags`);
        assert.ok(op.summary, `${where} has a summary`);
        for (const status of ['401', '429', '500']) assert.ok(op.responses[status], `${where} documents ${status}`);
        assert.ok(
          Object.keys(op.responses).some((s) => s.startsWith('2')),
          `${where} documents a success`,
        );
      }
    }
    assert.ok(operations >= 8);
  });

  it('leaves operator and health routes out', () => {
    const paths = Object.keys(doc.paths);
    assert.ok(!paths.some((p) => p.startsWith('/operator') || p === '/healthz' || p.includes('openapi.json')));
  });

  it('serves the reference page, its script and the document it reads', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(res.body, /<html/i);
    assert.match(res.body, /"url": "\/v2\/openapi\.json"/);
    const script = /<script src="([^"]+)"/.exec(res.body)?.[1];
    assert.equal(script, 'js/scalar.js');

    const js = await t.app.inject({ method: 'GET', url: `/docs/${script}` });
    assert.equal(js.statusCode, 200);
    assert.equal(js.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.match(js.body, /createApiReference/);
    assert.equal(Number(js.headers['content-length']), js.rawPayload.length);
  });

  it("redirects /docs to /docs/, where the page's relative script path resolves", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/docs/');
    assert.equal(res.headers['content-type'], undefined);
  });
});
