import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { splitStatements } from '../../src/platform/db/migrate.ts';
import { newReference } from '../../src/platform/ids.ts';
import { stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

// A stored photo scene may hold one perspective at 1000 px (WebP) and, for a photo of 2000 px or
// more, three at 2000 px. Migration 0290 gives it the rest of the set a scene made through the API
// has.

const MIGRATION = join(import.meta.dirname, '..', '..', 'migrations', '0290_photo_scene_formats.sql');
const FORMATS = ['webp', 'jpeg', 'png'];
const CORNERS = [
  [480, 200],
  [700, 215],
  [690, 700],
  [430, 680],
];

describe('photo scenes made with the 1000 px WebP perspective only', () => {
  let t: TestApp;
  const scenes: Record<string, string> = {};
  const migrate = async () => {
    for (const statement of splitStatements(readFileSync(MIGRATION, 'utf8'))) await t.db.query(statement);
  };
  const outputs = async (ref: string) => {
    const res = await call(t, 'GET', `/v2/photo-scenes/${ref}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.data.photoScene.perspectives as Array<{ reference: string; output: Record<string, unknown> }>;
  };

  /** The rows of a photo scene as the code that offered WebP alone at 1000 px wrote them. */
  async function writtenTheOldWay(name: string, width: number, height: number, deleted = false) {
    const bytes = await sharp({ create: { width, height, channels: 3, background: '#b9a58a' } })
      .jpeg()
      .toBuffer();
    const up = await call(t, 'POST', '/v2/images', {
      payload: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(up.statusCode, 200, up.body);
    const image = up.data.image.reference as string;
    const [{ blob_key }] = await t.db.query<{ blob_key: string }>('SELECT blob_key FROM images WHERE id = $1', [image]);
    const org = t.seed.organizations[0].reference;
    const id = newReference('Scene');
    const at = t.clock.now();
    await t.db.query(
      `INSERT INTO scenes (id, import_key, name, description, private_organization_id, allows_product_perspectives, created_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, false, $6, $7)`,
      [id, `photo-${id}`, name, `${name}: your own photo`, org, at, deleted ? at : null],
    );
    await t.db.query(
      `INSERT INTO scene_productgroups (scene_id, productgroup_id)
       SELECT $1, g.productgroup_id FROM scene_productgroups g JOIN scenes s ON s.id = g.scene_id WHERE s.import_key = $2`,
      [id, stageSceneKey('studio')],
    );
    await t.db.query(
      `INSERT INTO photo_scenes (scene_id, organization_id, image_id, photo_blob_key, width, height, corners, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, org, image, blob_key, width, height, JSON.stringify(CORNERS), at],
    );
    const k = (px: number) => px / Math.max(width, height);
    const old = [[1000, 'webp'], ...(Math.max(width, height) >= 2000 ? FORMATS.map((f) => [2000, f]) : [])] as const;
    for (const [px, format] of old) {
      const pid = newReference('Perspective');
      await t.db.query(
        `INSERT INTO perspectives (id, import_key, name, kind, width_px, height_px, format, created_at)
         VALUES ($1, $2, $3, 'scene', $4, $5, $6, $7)`,
        [
          pid,
          `photo-${id}-${px}-${format}`,
          `${name}, ${px} px ${String(format).toUpperCase()}`,
          Math.round(width * k(Number(px))),
          Math.round(height * k(Number(px))),
          format,
          at,
        ],
      );
      await t.db.query('INSERT INTO scene_perspectives (scene_id, perspective_id) VALUES ($1, $2)', [id, pid]);
    }
    return id;
  }

  before(async () => {
    t = await createTestApp();
    scenes.small = await writtenTheOldWay('Shop counter', 1200, 900);
    scenes.large = await writtenTheOldWay('Workbench', 2400, 1800);
    scenes.deleted = await writtenTheOldWay('Old shelf', 1200, 900, true);
  });
  after(() => t.close());

  it('are listed with every format at every size the photo has after the migration, and only once when it runs again', async () => {
    assert.deepEqual(
      (await outputs(scenes.small)).map((p) => p.output.format),
      ['webp'],
      'before: the 1000 px WebP alone',
    );
    const before = await outputs(scenes.large);
    await migrate();
    await migrate();
    const small = await outputs(scenes.small);
    assert.deepEqual(
      small.map((p) => p.output),
      FORMATS.map((format) => ({ widthPx: 1000, heightPx: 750, format })),
    );
    const large = await outputs(scenes.large);
    assert.deepEqual(
      large.map((p) => p.output),
      [1000, 2000].flatMap((px) => FORMATS.map((format) => ({ widthPx: px, heightPx: px * 0.75, format }))),
      'six perspectives: 1000 and 2000 px, each in WebP, JPEG and PNG',
    );
    for (const p of before)
      assert.ok(
        large.some((q) => q.reference === p.reference),
        `${p.reference} keeps its reference`,
      );
    for (const p of [...small, ...large]) assert.match(p.reference, /^Perspective_[0-9a-hjkmnp-tv-z]{26}$/);
    const listed = await call(t, 'GET', '/v2/photo-scenes');
    const fromList = listed.data.photoScenes.find((s: { reference: string }) => s.reference === scenes.large);
    assert.equal(fromList.perspectives.length, 6);
    const names = await t.db.query<{ name: string }>(
      `SELECT p.name FROM perspectives p JOIN scene_perspectives sp ON sp.perspective_id = p.id
        WHERE sp.scene_id = $1 ORDER BY p.name`,
      [scenes.small],
    );
    assert.deepEqual(
      names.map((r) => r.name),
      ['Shop counter, 1000 px JPEG', 'Shop counter, 1000 px PNG', 'Shop counter, 1000 px WEBP'],
    );
    const deleted = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM scene_perspectives WHERE scene_id = $1',
      [scenes.deleted],
    );
    assert.equal(deleted[0].n, 1, 'a deleted scene gets nothing');
  });

  it('renders a case in a perspective the migration gave, in that format', async () => {
    const d = seeded(t);
    const jpeg = (await outputs(scenes.small)).find((p) => p.output.format === 'jpeg')!;
    const perspectives = await call(
      t,
      'GET',
      `/v2/perspectives?sceneReference=${scenes.small}&productReference=${d.ip15}`,
    );
    assert.ok(perspectives.data.perspectives.some((p: { reference: string }) => p.reference === jpeg.reference));
    const look = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${scenes.small}&productReference=${d.ip15}&perspectiveReference=${jpeg.reference}`,
    );
    assert.equal(look.statusCode, 200, look.body);
    const image = await uploadSolid(t, { r: 210, g: 30, b: 30 });
    const created = await createRender(t, look.data.composition.reference, image);
    assert.equal(created.statusCode, 200, created.body);
    const ref = created.data.render.reference;
    await t.s.worker.drain();
    const render = await call(t, 'GET', `/v2/renders/${ref}`);
    assert.equal(render.data.render.status, 'completed', render.body);
    const media = await call(t, 'GET', `/v2/renders/${ref}/media`);
    assert.equal(media.statusCode, 200);
    const meta = await sharp(media.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 1000, 750]);
  });
});
