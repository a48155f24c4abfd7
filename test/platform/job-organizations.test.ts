import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { PRODUCT_CHANGED_JOB } from '../../src/modules/catalog/events.ts';
import { EXPIRE_JOB } from '../../src/modules/claims/evidence.ts';
import { PRINT_FILES_JOB } from '../../src/modules/production/file-queue.ts';
import { CALLBACK_JOB } from '../../src/modules/orders/callback.ts';
import { RENDER_JOB } from '../../src/modules/rendering/renders.ts';
import { DELIVER_JOB } from '../../src/modules/webhooks/events.ts';
import { ScopedClock } from '../../src/platform/clock.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { uploadEvidence } from '../claims/helpers.ts';
import { createOrder, orderBody, store, uploadImage } from '../orders/helpers.ts';
import { createRender, seeded, uploadSolid } from '../rendering/helpers.ts';
import { clearEndpoints, createEndpoint, recordEvent } from '../webhooks/helpers.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { serviceModule, serviceModuleArgs } from '../support/entry.ts';

/**
 * Jobs are claimed fairly between organizations, so each must carry its own. Callers name it when
 * they queue (the request's scope is not kept across awaits outside test clocks): these are the
 * queues of a request, of a job that queues its own retry, and of the platform.
 */
describe('the organization of queued jobs', () => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let org: string;
  before(async () => {
    t = await createTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '5,60' } });
    rx = await startReceiver();
    org = t.seed.organizations[0].reference;
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  const jobs = async (kind: string) =>
    (
      await t.db.query<{ organization_id: string | null }>(
        'SELECT organization_id FROM jobs WHERE kind = $1 ORDER BY id',
        [kind],
      )
    ).map((j) => j.organization_id);

  it('webhook deliveries and their retries, queued by a job, belong to the endpoint’s organization', async () => {
    await t.db.query('DELETE FROM jobs WHERE kind = $1', [DELIVER_JOB]);
    await clearEndpoints(t);
    rx.set(() => 500);
    await createEndpoint(t, rx.url, ['order.created']);
    await recordEvent(t);
    assert.deepEqual(await jobs(DELIVER_JOB), [org]);
    assert.equal(await t.s.worker.drain(), 1);
    assert.equal(rx.received.length, 1, 'the first attempt ran and failed');
    assert.deepEqual(await jobs(DELIVER_JOB), [org, org], 'the retry the failed attempt queued');
  });

  it('renders and order callbacks belong to the organization that asked', async () => {
    const d = seeded(t);
    const image = await uploadSolid(t, { r: 200, g: 30, b: 30 });
    const render = await createRender(t, d.cStudioIp15, image);
    assert.equal(render.statusCode, 200, render.body);
    assert.deepEqual([...new Set(await jobs(RENDER_JOB))], [org]);

    const other = t.seed.organizations[1].reference;
    await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: `${rx.url}/cb` });
    try {
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      const start = await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`);
      assert.equal(start.statusCode, 204, start.body);
      const owners = await jobs(CALLBACK_JOB);
      assert.ok(owners.length > 0);
      assert.ok(owners.every((o) => o === org) && !owners.includes(other), JSON.stringify(owners));
      assert.deepEqual([...new Set(await jobs(PRINT_FILES_JOB))], [org], 'the print files of the order');
    } finally {
      await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: null });
    }
  });

  it('evidence that expires unused belongs to the organization that uploaded it', async () => {
    await uploadEvidence(t);
    assert.deepEqual([...new Set(await jobs(EXPIRE_JOB))], [org]);
  });

  it('catalog changes are the platform’s own', async () => {
    await t.db.query('DELETE FROM jobs WHERE kind = $1', [PRODUCT_CHANGED_JOB]);
    const changed = await operator(t, 'PATCH', `/catalog/products/${seeded(t).s24}`, { status: 'sunsetted' });
    assert.equal(changed.statusCode, 200, changed.body);
    const owners = await jobs(PRODUCT_CHANGED_JOB);
    assert.ok(owners.length > 0, 'the change is announced');
    assert.ok(
      owners.every((o) => o === null),
      JSON.stringify(owners),
    );
  });
});

/** A fresh process: whether a scope was ever kept shows in the async ids promises get. */
const CHILD = (enable: boolean) => `
const ah = await import('node:async_hooks');
const c = await import(${JSON.stringify(serviceModule('platform/context.ts'))});
${enable ? 'c.useOrganizationScopes();' : ''}
const seen = await c.runInScope(async () => { await null; return c.currentOrganization(); }, 'Organization_a');
const id = await Promise.resolve().then(() => ah.executionAsyncId());
process.stdout.write(JSON.stringify({ seen, id }));`;

describe('organization scopes', () => {
  const run = async (enable: boolean) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...serviceModuleArgs(), '--input-type=module', '-e', CHILD(enable)],
      { cwd: join(import.meta.dirname, '..', '..') },
    );
    return JSON.parse(stdout) as { seen: string | null; id: number };
  };

  it('are off unless test clocks turn them on, and then follow the work across awaits', async () => {
    assert.deepEqual(await run(false), { seen: null, id: 0 }, 'no async hooks for promises');
    const on = await run(true);
    assert.equal(on.seen, 'Organization_a');
    assert.ok(on.id > 0, 'promises are tracked once scopes are on');
  });

  it('a production app has no test clocks, so no scopes', async () => {
    const prod = await createTestApp({ env: { APP_ENV: 'production' } });
    try {
      assert.ok(!(prod.s.clock instanceof ScopedClock));
      assert.equal(prod.s.testClocks, null);
    } finally {
      await prod.close();
    }
  });
});
