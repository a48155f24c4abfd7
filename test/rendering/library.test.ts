import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { seeded } from './helpers.ts';

// Every test of the file only reads the seeded library and catalog: one app serves them all.
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('scenes, perspectives and compositions', () => {
  let d: ReturnType<typeof seeded>;
  before(() => {
    d = seeded(t);
  });

  it('lists the scenes visible to the organization, private ones only to their owner', async () => {
    const own = await call(t, 'GET', '/v2/scenes');
    assert.equal(own.statusCode, 200);
    const ownRefs = own.data.scenes.map((s: any) => s.reference);
    assert.deepEqual(ownRefs.sort(), Object.values(t.seed.rendering!.scenes).sort());
    assert.ok([d.studio, d.marble, d.front].every((s) => ownRefs.includes(s)));
    assert.deepEqual(Object.keys(own.data.scenes[0]).sort(), ['name', 'reference']);
    assert.equal(own.data.nextCursor, null);
    const other = await call(t, 'GET', '/v2/scenes', { key: t.otherKey });
    const otherRefs = other.data.scenes.map((s: any) => s.reference);
    assert.ok(otherRefs.includes(d.studio) && otherRefs.includes(d.front));
    assert.ok(!otherRefs.includes(d.marble), 'the private scene stays private');
  });

  it('shows a scene with its details', async () => {
    const res = await call(t, 'GET', `/v2/scenes/${d.studio}`);
    assert.equal(res.statusCode, 200);
    const s = res.data.scene;
    assert.equal(s.name, 'Studio desk');
    assert.match(s.description, /desk/);
    assert.equal(s.private, false);
    assert.equal(s.allowsProductPerspectives, true);
    assert.equal(s.compatibleProductgroups.length, 2);
    assert.match(s.compatibleProductgroups[0].reference, /^Productgroup_/);
    assert.deepEqual(s.perspectives, [{ reference: d.studioFront }]);
    const marble = await call(t, 'GET', `/v2/scenes/${d.marble}`);
    assert.equal(marble.data.scene.private, true);
    assert.equal(marble.data.scene.allowsProductPerspectives, false);
  });

  it('hides a private scene from other organizations and treats bad references as 404', async () => {
    for (const ref of [d.marble, 'Scene_nope', d.studioFront, 'x']) {
      const res = await call(t, 'GET', `/v2/scenes/${ref}`, { key: t.otherKey });
      assert.equal(res.statusCode, 404, ref);
      assert.equal(res.data.code, 'not_found');
    }
    const lookup = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.marble}&productReference=${d.ip15}&perspectiveReference=${d.marbleTop}`,
      { key: t.otherKey },
    );
    assert.equal(lookup.statusCode, 404);
    const comp = await call(t, 'GET', `/v2/compositions/${d.cMarbleIp15}`, { key: t.otherKey });
    assert.equal(comp.statusCode, 404);
    const persp = await call(t, 'GET', `/v2/perspectives/${d.marbleTop}`, { key: t.otherKey });
    assert.equal(persp.statusCode, 404);
  });

  it('filters scenes by productgroup', async () => {
    const ip15 = await call(t, 'GET', `/v2/products/${d.ip15}`);
    const group = ip15.data.product.productgroupReference;
    const res = await call(t, 'GET', `/v2/scenes?productgroupReference=${group}`);
    const refs = res.data.scenes.map((s: any) => s.reference);
    assert.ok([d.studio, d.marble, d.front].every((s) => refs.includes(s)));
    const leather = await call(t, 'GET', `/v2/products/${d.leather}`);
    const only = await call(t, 'GET', `/v2/scenes?productgroupReference=${leather.data.product.productgroupReference}`);
    const onlyRefs = only.data.scenes.map((s: any) => s.reference);
    assert.ok(onlyRefs.includes(d.marble) && onlyRefs.includes(d.front) && !onlyRefs.includes(d.studio));
    const protector = await call(t, 'GET', `/v2/products/${d.protector}`);
    const none = await call(
      t,
      'GET',
      `/v2/scenes?productgroupReference=${protector.data.product.productgroupReference}`,
    );
    assert.deepEqual(none.data.scenes, []);
    const unknown = await call(t, 'GET', '/v2/scenes?productgroupReference=Productgroup_0123456789abcdefghjkmnpqrs');
    assert.equal(unknown.statusCode, 404);
    const foreign = await call(
      t,
      'GET',
      `/v2/scenes?productgroupReference=${leather.data.product.productgroupReference}`,
      { key: t.otherKey },
    );
    assert.equal(foreign.statusCode, 404);
    const extra = await call(t, 'GET', '/v2/scenes?colour=red');
    assert.equal(extra.statusCode, 400);
  });

  it('shows scene and product perspectives with output, scenes and products', async () => {
    const scene = await call(t, 'GET', `/v2/perspectives/${d.studioFront}`);
    assert.equal(scene.statusCode, 200);
    assert.deepEqual(scene.data.perspective.output, { widthPx: 800, heightPx: 600, format: 'webp' });
    assert.deepEqual(scene.data.perspective.scenes, [{ reference: d.studio }]);
    assert.equal(scene.data.perspective.products, null);
    const product = await call(t, 'GET', `/v2/perspectives/${d.closeup}`);
    assert.deepEqual(product.data.perspective.output, { widthPx: 512, heightPx: 512, format: 'png' });
    assert.equal(product.data.perspective.scenes, null);
    assert.deepEqual(product.data.perspective.products, [{ reference: d.ip15 }]);
    const marble = await call(t, 'GET', `/v2/perspectives/${d.marbleTop}`);
    assert.deepEqual(marble.data.perspective.output, { widthPx: 600, heightPx: 800, format: 'jpeg' });
    assert.equal((await call(t, 'GET', '/v2/perspectives/Perspective_bad')).statusCode, 404);
  });

  it('lists perspectives usable in a scene, adding product perspectives where the scene allows them', async () => {
    const refs = (res: any) => res.data.perspectives.map((p: any) => p.reference).sort();
    const all = await call(t, 'GET', '/v2/perspectives');
    assert.deepEqual(refs(all), Object.values(t.seed.rendering!.perspectives).sort());
    assert.deepEqual(refs(await call(t, 'GET', '/v2/perspectives', { key: t.otherKey })).includes(d.marbleTop), false);
    assert.deepEqual(
      refs(await call(t, 'GET', `/v2/perspectives?sceneReference=${d.studio}`)),
      [d.studioFront, d.closeup].sort(),
    );
    assert.deepEqual(
      refs(await call(t, 'GET', `/v2/perspectives?sceneReference=${d.studio}&productReference=${d.ip15}`)),
      [d.studioFront, d.closeup].sort(),
    );
    assert.deepEqual(
      refs(await call(t, 'GET', `/v2/perspectives?sceneReference=${d.studio}&productReference=${d.s24}`)),
      [d.studioFront],
    );
    // The marble scene does not allow product perspectives: the close-up is not usable there.
    assert.deepEqual(
      refs(await call(t, 'GET', `/v2/perspectives?sceneReference=${d.marble}&productReference=${d.ip15}`)),
      [d.marbleTop],
    );
    // Its own, and those of every scene its productgroup fits (the 3D scenes' among them).
    const ofIp15 = refs(await call(t, 'GET', `/v2/perspectives?productReference=${d.ip15}`));
    assert.ok([d.studioFront, d.marbleTop, d.closeup, d.frontSquare].every((p) => ofIp15.includes(p)));
    const seededPerspectives = Object.values(t.seed.rendering!.perspectives);
    assert.ok(ofIp15.every((p: string) => seededPerspectives.includes(p)));
    assert.deepEqual(refs(await call(t, 'GET', `/v2/perspectives?productReference=${d.protector}`)), []);
    assert.equal(
      (await call(t, 'GET', `/v2/perspectives?sceneReference=${d.marble}`, { key: t.otherKey })).statusCode,
      404,
    );
    assert.equal(
      (await call(t, 'GET', '/v2/perspectives?productReference=Product_0123456789abcdefghjkmnpqrs')).statusCode,
      404,
    );
  });

  it('looks up a composition: 200, 404 for a combination that does not exist, 410 when retired', async () => {
    const ok = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.studio}&productReference=${d.ip15}&perspectiveReference=${d.studioFront}`,
    );
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.data.composition, { reference: d.cStudioIp15, tokenCost: 2 });
    const product = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.studio}&productReference=${d.ip15}&perspectiveReference=${d.closeup}`,
    );
    assert.deepEqual(product.data.composition, { reference: d.cCloseup, tokenCost: 3 });
    const missing = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.studio}&productReference=${d.s24}&perspectiveReference=${d.closeup}`,
    );
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.data.code, 'not_found');
    const gone = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${d.studio}&productReference=${d.ip15black}&perspectiveReference=${d.studioFront}`,
    );
    assert.equal(gone.statusCode, 410);
    assert.equal(gone.data.code, 'composition_unavailable');
    const incomplete = await call(t, 'GET', `/v2/lookup-composition?sceneReference=${d.studio}`);
    assert.equal(incomplete.statusCode, 400);
    const bad = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=nope&productReference=${d.ip15}&perspectiveReference=${d.studioFront}`,
    );
    assert.equal(bad.statusCode, 404);
  });

  it('documents every rendering endpoint in the OpenAPI document', async () => {
    const res = await call(t, 'GET', '/v2/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    const ops = new Set<string>();
    for (const item of Object.values(res.data.paths) as any[])
      for (const op of Object.values(item) as any[]) ops.add(op.operationId);
    for (const id of [
      'listScenes',
      'getScene',
      'listPerspectives',
      'getPerspective',
      'lookupComposition',
      'getComposition',
      'createRender',
      'getRender',
      'downloadRenderMedia',
      'downloadRenderThumbnail',
      'getRendertokens',
    ]) {
      assert.ok(ops.has(id), id);
    }
    assert.ok(!JSON.stringify(res.data.paths).includes('/rendering/import'), 'operator routes stay hidden');
  });

  it('shows a composition with token cost and its scene, product and perspective', async () => {
    const res = await call(t, 'GET', `/v2/compositions/${d.cMarbleIp15}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.data.composition, {
      reference: d.cMarbleIp15,
      tokenCost: 5,
      sceneReference: d.marble,
      productReference: d.ip15,
      perspectiveReference: d.marbleTop,
    });
    const gone = await call(t, 'GET', `/v2/compositions/${d.cRetired}`);
    assert.equal(gone.statusCode, 410);
    assert.equal((await call(t, 'GET', '/v2/compositions/Composition_0123456789abcdefghjkmnpqrs')).statusCode, 404);
    assert.equal((await call(t, 'GET', `/v2/compositions/${d.studio}`)).statusCode, 404);
  });
});

describe('every print product has a composition', () => {
  it('gives every case with a device its straight-on shot', async () => {
    const missing = await t.db.query(
      `SELECT p.name FROM products p JOIN productgroups g ON g.id = p.productgroup_id
        WHERE p.printable AND p.device_key IS NOT NULL AND g.case_type IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM compositions c WHERE c.product_id = p.id)`,
    );
    assert.deepEqual(missing, []);
    const [{ n }] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM compositions WHERE generator->>'kind' = 'front'`,
    );
    assert.ok(n >= 300, `${n} straight-on compositions`);
  });
});
