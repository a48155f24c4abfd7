import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { seeded, uploadSolid } from '../rendering/helpers.ts';

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

  it('documents every download as the images it is, and the answers match', async () => {
    const images = ['image/jpeg', 'image/png', 'image/webp'];
    const binaries: string[] = [];
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) {
        const content = op?.responses?.['200']?.content ?? {};
        if (Object.values<any>(content).some((c) => c.schema?.format === 'binary')) {
          binaries.push(op.operationId);
          // Invoices download as the documents they are (PDF, UBL XML); every other download is an image.
          if (op.operationId === 'getInvoicePdf') assert.deepEqual(Object.keys(content), ['application/pdf']);
          else if (op.operationId === 'getInvoiceUbl') assert.deepEqual(Object.keys(content), ['application/xml']);
          else if (op.operationId !== 'uploadImage')
            assert.deepEqual(Object.keys(content).sort(), images, op.operationId);
        }
      }
    for (const id of ['downloadRenderMedia', 'downloadRenderThumbnail', 'previewRender', 'getProductMedia'])
      assert.ok(binaries.includes(id), `${id} answers an image`);
    const d = seeded(t);
    const image = await uploadSolid(t, { r: 200, g: 40, b: 90 });
    const preview = await call(t, 'POST', '/v2/renders/preview', {
      body: { preview: { compositionReference: d.cStudioIp15, imageReference: image } },
    });
    assert.equal(preview.statusCode, 200);
    const type = String(preview.headers['content-type']);
    assert.ok(images.includes(type.split(';')[0]), type);
  });

  it('introduces every tag it uses, and names its contact and licence', () => {
    const used = new Set<string>();
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) for (const tag of op?.tags ?? []) used.add(tag);
    const listed = (doc.tags as Array<{ name: string; description: string }>).map((tag) => tag.name);
    assert.deepEqual([...listed].sort(), [...used].sort());
    for (const tag of doc.tags) assert.ok(tag.description.length > 40, `${tag.name} is introduced`);
    assert.equal(doc.info.contact.name, 'Partner API support');
    assert.match(doc.info.contact.url, /\/dashboard$/);
    assert.deepEqual(doc.info.license, { name: 'MIT', identifier: 'MIT' });
  });

  it("names each store's V1 code legacyCode, as the contract's legacy identifiers go", async () => {
    const stores = (await call(t, 'GET', '/v2/stores')).data.stores as Array<{ code: string; legacyCode: string }>;
    assert.ok(stores.length > 0);
    for (const store of stores) assert.equal(store.legacyCode, store.code);
    const schema = JSON.stringify(doc.paths['/v2/stores'].get.responses['200']);
    assert.match(schema, /legacyCode/);
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
