import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { splitStatements } from '../../src/platform/db/migrate.ts';
import { newReference } from '../../src/platform/ids.ts';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { type Generator, generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { RenderInputError } from '../../src/modules/rendering/renderer.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

// A deployment that ran the Blender-baked scenes holds their scene, perspective and composition
// rows (a generator of kind 'scene') and renders made in them. Migration 0280 retires them.

const MIGRATION = join(import.meta.dirname, '..', '..', 'migrations', '0280_retire_baked_scenes.sql');

describe('the retired baked scenes', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  const baked = {
    scene: newReference('Scene'),
    perspective: newReference('Perspective'),
    c: newReference('Composition'),
  };
  let done: string;
  let queued: string;
  const media = Buffer.from('a stored render made in the baked desk scene');

  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  it('are not made on a fresh database', async () => {
    const rows = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM compositions c JOIN scenes s ON s.id = c.scene_id
        WHERE c.generator ->> 'kind' = 'scene' OR s.import_key IN ('scene-studio', 'scene-desk', 'scene-marble')`,
    );
    assert.equal(rows[0].n, 0);
    const scenes = await call(t, 'GET', '/v2/scenes');
    assert.equal(scenes.statusCode, 200);
    assert.ok(scenes.data.scenes.length >= 4, 'the stages, the straight-on shot and the demo scenes are listed');
  });

  it('answer 410 after the migration on an existing database, leave the listings, and keep their renders readable', async () => {
    // The rows as the seed of a deployment with the baked scenes wrote them, and two renders.
    const [{ productgroup_id: group }] = await t.db.query<{ productgroup_id: string }>(
      'SELECT productgroup_id FROM products WHERE id = $1',
      [d.ip15],
    );
    const at = t.clock.now();
    await t.db.query(
      `INSERT INTO scenes (id, import_key, name, description, created_at) VALUES ($1, 'scene-desk', 'Wooden desk', 'Baked', $2)`,
      [baked.scene, at],
    );
    await t.db.query('INSERT INTO scene_productgroups (scene_id, productgroup_id) VALUES ($1, $2)', [
      baked.scene,
      group,
    ]);
    await t.db.query(
      `INSERT INTO perspectives (id, import_key, name, kind, width_px, height_px, format, created_at)
       VALUES ($1, 'scene-desk-left', 'Desk, left', 'scene', 1000, 1000, 'webp', $2)`,
      [baked.perspective, at],
    );
    await t.db.query('INSERT INTO scene_perspectives (scene_id, perspective_id) VALUES ($1, $2)', [
      baked.scene,
      baked.perspective,
    ]);
    const generator = { kind: 'scene', scene: 'desk', view: 'left' };
    await t.db.query(
      `INSERT INTO compositions (id, import_key, scene_id, product_id, perspective_id, token_cost, background_blob_key, generator, created_at)
       VALUES ($1, $2, $3, $4, $5, 3, $6, $7, $8)`,
      [
        baked.c,
        `scene-desk-left-${d.ip15}`,
        baked.scene,
        d.ip15,
        baked.perspective,
        `generated:${JSON.stringify(generator)}`,
        JSON.stringify(generator),
        at,
      ],
    );
    const lookup = `/v2/lookup-composition?sceneReference=${baked.scene}&productReference=${d.ip15}&perspectiveReference=${baked.perspective}`;
    assert.equal((await call(t, 'GET', lookup)).statusCode, 200, 'available before the migration');
    const listed = async () =>
      (await call(t, 'GET', '/v2/scenes')).data.scenes.map((s: { reference: string }) => s.reference);
    assert.ok((await listed()).includes(baked.scene));

    const first = (await createRender(t, baked.c, await uploadSolid(t, { r: 200, g: 40, b: 40 }))).data.render
      .reference;
    queued = (await createRender(t, baked.c, await uploadSolid(t, { r: 40, g: 40, b: 200 }))).data.render.reference;
    // The first one completed while the scene's assets were there.
    const base = `renders/${t.seed.organizations[0].reference}/${first}`;
    await t.s.blobs.put(`${base}/media.webp`, media);
    await t.s.blobs.put(`${base}/thumbnail.webp`, media);
    await t.db.query(
      `UPDATE renders SET status = 'completed', media_blob_key = $2, media_size = $3, thumbnail_blob_key = $4,
         thumbnail_size = $3, thumbhash = 'AAAA', completed_at = $5 WHERE id = $1`,
      [first, `${base}/media.webp`, media.length, `${base}/thumbnail.webp`, at],
    );
    done = first;

    for (const statement of splitStatements(readFileSync(MIGRATION, 'utf8'))) await t.db.query(statement);

    for (const [method, url, body] of [
      ['GET', lookup, undefined],
      ['GET', `/v2/compositions/${baked.c}`, undefined],
      [
        'POST',
        '/v2/renders',
        { render: { compositionReference: baked.c, imageReference: await uploadSolid(t, { r: 9, g: 9, b: 9 }) } },
      ],
    ] as const) {
      const res = await call(t, method, url, { body });
      assert.equal(res.statusCode, 410, `${method} ${url}: ${res.body}`);
      assert.equal(res.data.code, 'composition_unavailable');
    }
    const scenes = await listed();
    assert.ok(!scenes.includes(baked.scene), 'a scene whose every composition is retired is not listed');
    assert.ok(scenes.includes(d.studio) && scenes.includes(d.front), 'the other scenes stay listed');
    const forGroup = await call(t, 'GET', `/v2/scenes?productgroupReference=${group}`);
    assert.ok(!forGroup.data.scenes.some((s: { reference: string }) => s.reference === baked.scene));
    for (const q of ['', `?productReference=${d.ip15}`]) {
      const ps = (await call(t, 'GET', `/v2/perspectives${q}`)).data.perspectives.map(
        (p: { reference: string }) => p.reference,
      );
      assert.ok(!ps.includes(baked.perspective), `GET /v2/perspectives${q} leaves out the retired scene's perspective`);
      assert.ok(ps.includes(d.studioFront), `GET /v2/perspectives${q} lists the others`);
    }
    // Read by reference, the scene and its perspective still resolve (stored references stay valid).
    const scene = await call(t, 'GET', `/v2/scenes/${baked.scene}`);
    assert.equal(scene.statusCode, 200);
    assert.deepEqual(scene.data.scene.perspectives, [{ reference: baked.perspective }]);
    assert.equal((await call(t, 'GET', `/v2/perspectives/${baked.perspective}`)).statusCode, 200);

    const stored = await call(t, 'GET', `/v2/renders/${done}`);
    assert.equal(stored.statusCode, 200);
    assert.equal(stored.data.render.status, 'completed');
    const file = await call(t, 'GET', `/v2/renders/${done}/media`);
    assert.equal(file.statusCode, 200);
    assert.deepEqual(file.rawPayload, media);
  });

  it('fail a render queued before the migration with the reason, once, instead of leaving it pending', async () => {
    t.clock.advance(5000);
    await t.s.worker.drain();
    const res = await call(t, 'GET', `/v2/renders/${queued}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.render.status, 'failed');
    assert.equal(res.data.render.failureReason, `composition ${baked.c} is no longer available`);
    const jobs = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE payload ->> 'renderId' = $1 AND status IN ('pending', 'running')`,
      [queued],
    );
    assert.equal(jobs[0].n, 0, 'no job waits for it');
  });

  it('are a template kind the service does not draw: a row of that kind fails cleanly', async () => {
    const device = loadDevices().find((x) => x.key === 'iphone-17-pro')!;
    await assert.rejects(
      generatedTemplate(
        { blobs: t.s.blobs, log: { warn: () => {} } },
        { kind: 'scene', scene: 'desk', view: 'left' } as unknown as Generator,
        { device, caseType: CASE_TYPES.tough, colour: null },
        { widthPx: 1000, heightPx: 1000 },
      ),
      (err: unknown) => err instanceof RenderInputError && /no template of kind scene/.test(err.message),
    );
  });
});
