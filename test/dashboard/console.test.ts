import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { categories, itemIssues, shippedOrder, uploadEvidence } from '../claims/helpers.ts';
import { createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { claimDecision } from './console-support.ts';
import { Agent, OPERATOR_USER, type Form, signedIn, textOf } from './helpers.ts';

describe('operator console, operator user API and partner test helpers', () => {
  let t: TestApp;
  let op: Agent;
  let partner: Agent;
  before(async () => {
    t = await createTestApp();
    op = await signedIn(t, OPERATOR_USER, 'console');
    partner = await signedIn(t);
  });
  after(() => t.close());

  const opSubmit = (url: string, form: Form, page = '/console') => op.submit(url, form, page);

  it('creates partner users through the operator API, with a password or an invitation link', async () => {
    const orgRef = t.seed.organizations[1].reference;
    const createUser = (body: object, org = orgRef) => operator(t, 'POST', `/organizations/${org}/users`, body);
    const res = await createUser({ email: 'New.User@Other.example', password: 'initial-password' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.user.email, 'new.user@other.example');
    assert.equal(res.data.user.role, 'partner');
    assert.match(res.data.user.reference, /^User_[0-9a-z]{26}$/);
    await new Agent(t).signIn({ email: 'new.user@other.example', password: 'initial-password' });
    const dup = await createUser({ email: 'new.user@other.example', password: 'initial-password' });
    assert.equal(dup.statusCode, 409);
    assert.equal(dup.data.code, 'email_in_use');
    assert.equal(
      (await createUser({ email: 'not-an-email', password: 'initial-password' })).data.code,
      'invalid_email',
    );
    assert.equal((await createUser({ email: 'a@b.example', password: 'short' })).data.code, 'password_too_short');
    const elsewhere = await createUser({ email: 'a@b.example', password: 'long-password' }, 'Organization_nope');
    assert.equal(elsewhere.statusCode, 404);
    assert.equal((await createUser({ email: 'a@b.example', role: 'admin' })).statusCode, 400);
    const invited = await createUser({ email: 'invitee@other.example' });
    assert.equal(invited.statusCode, 200);
    assert.match(invited.data.invitationUrl, /\/dashboard\/invitation\?token=[\w-]{43}$/);
    assert.equal(invited.data.user.status, 'invited');
    const list = await operator(t, 'GET', `/organizations/${orgRef}/users`);
    assert.ok(list.data.users.some((u: any) => u.email === 'invitee@other.example'));
    assert.equal(
      (
        await call(t, 'POST', `/operator/organizations/${orgRef}/users`, {
          key: null,
          body: { email: 'x@y.example', password: 'long-password' },
        })
      ).statusCode,
      401,
    );
    const opUser = await operator(t, 'POST', '/users', {
      email: 'second-operator@pod-service.example',
      password: 'operator-password-2',
    });
    assert.equal(opUser.data.user.role, 'operator');
    await new Agent(t).signIn(
      { email: 'second-operator@pod-service.example', password: 'operator-password-2' },
      'console',
    );
  });

  it('creates an organization with a user and sets its rendertoken limit', async () => {
    const created = await opSubmit('/console/organizations', { name: 'Console Co', rendertokenLimit: '250' });
    assert.equal(created.statusCode, 303, created.body);
    const orgPath = created.headers.location as string;
    const orgRef = orgPath.split('/').pop()!;
    assert.match(textOf((await op.get(orgPath)).body), /0 of 250 used this week/);
    const limit = await opSubmit(`/console/organizations/${orgRef}/rendertoken-limit`, { limit: '75' }, orgPath);
    assert.equal(limit.statusCode, 303);
    assert.equal((await operator(t, 'GET', `/organizations/${orgRef}`)).data.organization.rendertokenLimit, 75);
    const badLimit = await opSubmit(`/console/organizations/${orgRef}/rendertoken-limit`, { limit: '-1' }, orgPath);
    assert.equal(badLimit.statusCode, 400);
    const user = await opSubmit(
      `/console/organizations/${orgRef}/users`,
      { email: 'boss@console.example', password: 'boss-password-1' },
      orgPath,
    );
    assert.equal(user.statusCode, 303);
    const boss = await signedIn(t, { email: 'boss@console.example', password: 'boss-password-1' });
    assert.match(textOf((await boss.get('/dashboard')).body), /Console Co/);
    const link = await opSubmit(`/console/organizations/${orgRef}/users`, { email: 'later@console.example' }, orgPath);
    assert.match(link.body, /invitation\?token=/);
    const noName = await opSubmit('/console/organizations', { name: '' });
    assert.equal(noName.statusCode, 400);
  });

  it('changes a product’s lifecycle stage and stock, forward only', async () => {
    const ref = products(t).prelaunched;
    const page = await op.get('/console/catalog');
    assert.ok(page.body.includes(ref));
    const change = (r: string, form: Form) => opSubmit(`/console/catalog/${r}`, form, '/console/catalog');
    const res = await change(ref, { status: 'launched', logicalQuantity: '42' });
    assert.equal(res.statusCode, 303, res.body);
    const p = (await operator(t, 'GET', `/catalog/products/${ref}`)).data;
    const product = p.product ?? p;
    assert.equal(product.status, 'launched');
    assert.equal(product.availableQuantity, 42);
    const back = await change(ref, { status: 'announced' });
    assert.equal(back.statusCode, 409);
    assert.match(back.body, /only moves forward/);
    assert.equal((await change(ref, { status: 'bogus' })).statusCode, 400);
    assert.equal((await change('Product_nope', { status: 'launched' })).statusCode, 404);
  });

  it('lists the catalog without drawing a picture; a listed drawn picture is drawn when asked for', async () => {
    const drawn = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM product_pictures'))[0].n;
    const before = await drawn();
    const all = await op.get('/console/catalog');
    assert.equal(all.statusCode, 200);
    assert.equal(await drawn(), before, 'listing draws nothing');
    const urls = [...all.body.matchAll(/<img src="(\/console\/catalog\/Product_\w+\/media\/(?:back|front)\.webp)"/g)];
    assert.ok(urls.length >= 10, 'device products list their first drawn picture');
    const res = await op.get(urls[urls.length - 1][1]);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/webp');
    const meta = await sharp(res.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 1000, 1000]);
    const stats = await sharp(res.rawPayload).stats();
    assert.ok(
      stats.channels.some((c) => c.max - c.min > 64),
      'a drawing, not a blank square',
    );
    const sha = createHash('sha256').update(res.rawPayload).digest('hex');
    assert.equal((await t.db.query('SELECT 1 FROM product_pictures WHERE sha256 = $1', [sha])).length, 1);
    assert.ok((await drawn()) - before <= 1, 'only the picture asked for is drawn');
  });

  it('searches the catalog by text, brand, device, case type and stage, with pictures', async () => {
    const all = await op.get('/console/catalog');
    assert.equal(all.statusCode, 200);
    assert.match(all.body, /<img src="\/console\/catalog\/Product_\w+\/media\/[^"]+"/, 'product pictures');
    const pic = /<img src="(\/console\/catalog\/Product_\w+\/media\/[^"]+)"/.exec(all.body)![1];
    assert.equal((await op.get(pic)).statusCode, 200);
    assert.equal((await op.get('/console/catalog/Product_nope/media/x.png')).statusCode, 404);
    assert.equal((await op.get(`${pic.slice(0, pic.lastIndexOf('/'))}/nope.webp`)).statusCode, 404);
    const drawing =
      /<img src="\/console\/catalog\/Product_\w+\/media\/\w+\.webp"[^>]* style="background-image:url\('(\/console\/catalog\/Product_\w+\/picture\.svg)'\)"/.exec(
        all.body,
      );
    assert.ok(drawing, 'a drawn thumbnail stands on the drawing of its device until it arrives');
    const svg = await op.get(drawing[1]);
    assert.equal(svg.statusCode, 200);
    assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
    assert.match(svg.body, /^<svg [^>]*viewBox="0 0 [\d.]+ [\d.]+"[^>]*><title>[^<]+<\/title><rect/);
    assert.equal((await op.get('/console/catalog/Product_nope/picture.svg')).statusCode, 404);
    assert.equal((await partner.get(drawing[1])).statusCode, 403, 'console pictures are for operators');
    const brands = [...all.body.matchAll(/<option value="([^"]+)">([^<]+)<\/option>/g)].map((m) => m[1]);
    assert.ok(brands.length > 0, 'filter options');
    const named = await op.get('/console/catalog?q=MagSafe');
    assert.match(textOf(named.body), /MagSafe/);
    assert.doesNotMatch(textOf(named.body), /Tough Case/, 'only matching names');
    const ended = (await op.get('/console/catalog?stage=ended')).body;
    const stages = [...ended.matchAll(/<td[^>]*><span class="badge \w+">(\w+)<\/span><\/td>/g)].map((m) => m[1]);
    assert.ok(stages.length > 0);
    assert.deepEqual([...new Set(stages)], ['ended'], 'stage filter');
    const leatherPage = (await op.get('/console/catalog?caseType=leather&brand=Apple')).body;
    const leather = leatherPage.slice(leatherPage.indexOf('<table'));
    assert.match(textOf(leather), /iPhone \d+[^·]*· leather/);
    assert.doesNotMatch(textOf(leather), /Galaxy|· tough/, 'brand and case type filters');
    for (const q of ['q=%25%5F%27', 'brand=nope&device=nope&caseType=nope&stage=nope', 'offset=abc', 'q=zzzz-nothing'])
      assert.equal((await op.get(`/console/catalog?${q}`)).statusCode, 200, q);
    assert.match(textOf((await op.get('/console/catalog?q=zzzz-nothing')).body), /No product matches/);
  });

  it("shows a case's colourway on the product page of the console and of the dashboard: name, and each part's swatch named with its colour", async () => {
    const [{ id: tough }] = await t.db.query<{ id: string }>('SELECT id FROM products WHERE name = $1', [
      'iPhone 15 Tough Case Graphite and Orange',
    ]);
    const list = await op.get('/console/catalog?q=Graphite');
    assert.ok(list.body.includes(`<a href="/console/catalog/${tough}">`), 'the catalog links the product page');
    for (const [agent, url] of [
      [op, `/console/catalog/${tough}`],
      [partner, `/dashboard/products/${tough}`],
    ] as const) {
      const res = await agent.get(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      const shown = textOf(res.body);
      assert.match(shown, /Colourway Name: Graphite\/Orange/, url);
      assert.match(shown, /Shell: #2b2d31/, url);
      assert.match(shown, /Bezel \(side wall\): #f26b1d/, url);
      assert.match(shown, /Camera ring: #f26b1d/, url);
      const swatches = [
        ...res.body.matchAll(/<span class="swatch" style="background:(#[0-9a-f]{6})" aria-hidden="true">/g),
      ];
      assert.deepEqual(
        swatches.map((m) => m[1]),
        ['#2b2d31', '#f26b1d', '#f26b1d'],
        `${url}: a swatch beside each part's name`,
      );
    }
    const plain = products(t).prelaunched;
    assert.match(textOf((await op.get(`/console/catalog/${plain}`)).body), /No colourway/);
    assert.equal((await op.get('/console/catalog/Product_nope')).statusCode, 404);
    assert.equal((await partner.get('/dashboard/products/Product_nope')).statusCode, 404);
    assert.equal((await partner.get(`/console/catalog/${tough}`)).statusCode, 403, 'the console page is for operators');
  });

  it('runs the fulfilment queue on the Production page: start production, then ship with carrier and tracking', async () => {
    const order = await createOrder(t, orderBody(t, await uploadImage(t), { dropshipMinimalShippingLevel: 'tracked' }));
    const old = await op.get('/console/fulfilment');
    assert.equal(old.statusCode, 301, 'a Fulfilment bookmark is sent to the Production page');
    assert.equal(old.headers.location, '/console/production');
    assert.ok((await op.get('/console/production')).body.includes(order));
    const step = (action: string, form: Form) => opSubmit(`/console/production/${action}`, form, '/console/production');
    assert.equal((await step('start', { orderReference: order })).statusCode, 303);
    const again = await step('start', { orderReference: order });
    assert.equal(again.statusCode, 409);
    assert.equal((await step('produced', { orderReference: order })).statusCode, 303);
    const shipped = await step('ship', { orderReference: order, carrier: 'PostNL', trackingNumber: '3STEST123' });
    assert.equal(shipped.statusCode, 303, shipped.body);
    const o = (await call(t, 'GET', `/v2/orders/${order}`)).data.order;
    assert.equal(o.status.code, 'shipped');
    const s = (await call(t, 'GET', `/v2/shipments/${o.shipmentReference}`)).data.shipment;
    assert.equal(s.carrier, 'PostNL');
    assert.equal(s.trackingNumber, '3STEST123');
    const detail = await partner.get(`/dashboard/orders/${order}`);
    assert.match(detail.body, new RegExp(`href="${s.trackingUrl.replace(/[.?]/g, '\\$&')}"`));
    assert.match(textOf(detail.body), /PostNL 3STEST123/);
    assert.equal((await step('ship', { orderReference: 'Order_nope' })).statusCode, 400);
  });

  it('lets a partner use the test helpers from the order page', async () => {
    const order = await createOrder(t, orderBody(t, await uploadImage(t)));
    const list = await partner.get('/dashboard/orders?status=pending');
    assert.ok(list.body.includes(`/dashboard/orders/${order}`));
    assert.ok(!(await partner.get('/dashboard/orders?status=shipped')).body.includes(`/dashboard/orders/${order}`));
    const page = await partner.get(`/dashboard/orders/${order}`);
    assert.match(page.body, /Start production \(test\)/);
    assert.equal(
      (await partner.submit(`/dashboard/orders/${order}/start-production`, {}, `/dashboard/orders/${order}`))
        .statusCode,
      303,
    );
    assert.match((await partner.get(`/dashboard/orders/${order}`)).body, /Ship \(test\)/);
    assert.equal(
      (await partner.submit(`/dashboard/orders/${order}/ship`, {}, `/dashboard/orders/${order}`)).statusCode,
      303,
    );
    assert.equal((await call(t, 'GET', `/v2/orders/${order}`)).data.order.status.code, 'shipped');
  });

  it('decides a claim in the console; the partner sees the decision and the replacement order', async () => {
    const s = await shippedOrder(t, { quantities: [3] });
    t.clock.advance(5 * 24 * 3600_000);
    const cat = await categories(t);
    const filed = await itemIssues(t, {
      shipmentReference: s.shipment,
      orderReference: s.order,
      claimlines: [{ orderlineIndex: 1, quantity: 2, claimcategoryReference: cat['Wrong item'] }],
    });
    assert.equal(filed.statusCode, 200, filed.body);
    const claim = filed.data.claim.reference;
    const review = await op.get('/console/claims');
    assert.ok(review.body.includes(claim));
    const orgRef = t.seed.organizations[0].reference;
    const claimUrl = `/console/organizations/${orgRef}/claims/${claim}`;
    const reviewPage = (await op.get(claimUrl)).body;
    assert.match(reviewPage, /Decide claim/);
    const artwork = new RegExp(`/console/organizations/${orgRef}/images/(Image_\\w+)/thumbnail`).exec(reviewPage);
    assert.ok(artwork, "the partner's artwork next to the evidence");
    assert.match(reviewPage, /Ordered: artwork and mockup/);
    const thumb = await op.get(artwork[0]);
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers['content-type'], 'image/png');
    assert.equal((await partner.get(artwork[0])).statusCode, 403, 'the console route is for operators');
    assert.equal(
      (await op.get(`/console/organizations/${t.seed.organizations[1].reference}/images/${artwork[1]}/thumbnail`))
        .statusCode,
      404,
      'an image is looked up in its own organization only',
    );
    assert.match(
      (await partner.get(`/dashboard/claims/${claim}`)).body,
      new RegExp(`/dashboard/images/${artwork[1]}/thumbnail`),
    );
    const mismatch = await opSubmit(`${claimUrl}/decide`, claimDecision([1, 0, 0], s.order), claimUrl);
    assert.equal(mismatch.statusCode, 400);
    assert.match(mismatch.body, /add up to 1, but 2 were claimed/);
    const decision = claimDecision([1, 0, 1], s.order, { 'line.0.comment': 'one was fine', comment: 'Sorry!' });
    const decided = await opSubmit(`${claimUrl}/decide`, decision, claimUrl);
    assert.equal(decided.statusCode, 303, decided.body);
    const seen = textOf((await partner.get(`/dashboard/claims/${claim}`)).body);
    assert.match(seen, /resolved/);
    assert.match(seen, /replace 1, refund 0, reject 1 one was fine/);
    assert.match(seen, /Sorry!/);
    assert.match(seen, /Replacement orders Order_/);
    assert.match(textOf((await partner.get('/dashboard/claims')).body), /resolved/);
    const twice = await opSubmit(`${claimUrl}/decide`, claimDecision([0, 0, 2]), claimUrl);
    assert.equal(twice.statusCode, 409);
    assert.equal(
      (await op.get(`/console/organizations/${t.seed.organizations[1].reference}/claims/${claim}`)).statusCode,
      404,
      'a claim is found only within its organization',
    );
  });

  it('lets a partner decide a claim with the test helper', async () => {
    const s = await shippedOrder(t, { quantities: [1] });
    t.clock.advance(5 * 24 * 3600_000);
    const cat = await categories(t);
    const evidence = await uploadEvidence(t);
    const filed = await itemIssues(t, {
      shipmentReference: s.shipment,
      orderReference: s.order,
      claimlines: [
        { orderlineIndex: 1, quantity: 1, claimcategoryReference: cat['Wrong item'], evidenceReferences: [evidence] },
      ],
    });
    assert.equal(filed.statusCode, 200, filed.body);
    const claim = filed.data.claim.reference;
    const url = `/dashboard/claims/${claim}`;
    const page = await partner.get(url);
    assert.match(page.body, /Decide \(test helper\)/);
    const img = /<img src="(\/evidence-files\/[^"]+)" alt="Evidence image 1"/.exec(page.body)?.[1];
    assert.ok(img, 'evidence image shown, from this origin whatever PUBLIC_BASE_URL names');
    assert.equal((await t.app.inject({ method: 'GET', url: img })).statusCode, 200);
    const res = await partner.submit(`${url}/decide`, claimDecision([0, 0, 1]), url);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal((await call(t, 'GET', `/v2/claims/${claim}`)).data.claim.status, 'rejected');
  });

  it('lists dead jobs and retries one', async () => {
    const rows = await t.db.query(
      `INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, last_error, created_at, updated_at, finished_at, organization_id)
      VALUES ('nothing.registered', '{}', 'dead', 3, 3, $1, 'boom <b>', $1, $1, $1, $2) RETURNING id`,
      [t.clock.now(), t.seed.organizations[1].reference],
    );
    const id = rows[0].id;
    const page = await op.get('/console/jobs');
    assert.match(page.body, /boom &lt;b&gt;/);
    const text = textOf(page.body);
    assert.match(text, /Jobs by kind/);
    assert.match(text, /nothing\.registered 0 0 0 1/, 'counts by kind and state');
    assert.match(text, /Jobs by organization/);
    assert.match(text, /Other Prints Ltd \d+ \d+ \d+ [1-9]/, 'counts by organization');
    const res = await opSubmit(`/console/jobs/${id}/retry`, {}, '/console/jobs');
    assert.equal(res.statusCode, 303);
    assert.equal((await t.db.query('SELECT status FROM jobs WHERE id = $1', [id]))[0].status, 'pending');
    assert.equal((await opSubmit(`/console/jobs/${id}/retry`, {}, '/console/jobs')).statusCode, 404, 'no longer dead');
    assert.equal((await opSubmit('/console/jobs/abc/retry', {}, '/console/jobs')).statusCode, 404);
    await t.db.query('DELETE FROM jobs WHERE id = $1', [id]);
  });

  it('renders every console page', async () => {
    for (const url of [
      '/console',
      '/console/catalog',
      '/console/production',
      '/console/claims',
      '/console/jobs',
      `/console/organizations/${t.seed.organizations[0].reference}`,
    ]) {
      const res = await op.get(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<nav aria-label="Main">/);
    }
    assert.equal((await op.get('/console/organizations/Organization_nope')).statusCode, 404);
  });
});
