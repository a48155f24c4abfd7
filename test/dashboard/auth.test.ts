import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAILURE_WINDOW_MS } from '../../src/modules/dashboard/throttle.ts';
import { SESSION_IDLE_MS, SESSION_MAX_MS, hashPassword, verifyPassword } from '../../src/modules/dashboard/service.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { Agent, OPERATOR_USER, PARTNER, csrfOf, signedIn, textOf } from './helpers.ts';

describe('dashboard sign-in, sessions and lockout', () => {
  let t: TestApp;
  before(async () => {
    // Buckets that never refill: counts stay exact however slow the machine is.
    t = await createTestApp({ rateLimits: new MemoryRateLimitStore(() => 0) });
  });
  after(() => t.close());

  it('hashes passwords with salted scrypt and compares them', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    assert.match(a, /^scrypt\$16384\$[\w-]+\$[\w-]+$/);
    assert.notEqual(a, b, 'a random salt per hash');
    assert.equal(await verifyPassword('correct horse battery', a), true);
    assert.equal(await verifyPassword('correct horse batterY', a), false);
    assert.equal(await verifyPassword('x', 'garbage'), false);
  });

  it('signs in with the seeded partner and sets a session cookie with safe flags', async () => {
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /<label for="[^"]+">E-mail/);
    const res = await a.post('/dashboard/sign-in', {
      _csrf: csrfOf(page.body),
      email: 'Partner@Demo-Cases.example ',
      password: PARTNER.password,
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard');
    const cookie = a.setCookies.find((c) => c.startsWith('pod_session='));
    assert.ok(cookie, 'session cookie set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/i, 'plain http base URL: no Secure flag');
    assert.ok(a.cookies.get('pod_session')!.length >= 40, 'an unguessable id');
    const home = await a.get('/dashboard');
    assert.equal(home.statusCode, 200);
    assert.match(textOf(home.body), /Demo Cases Co/);
    assert.match(home.body, /Test environment/);
    assert.equal(home.headers['cache-control'], 'no-store');
    assert.match(String(home.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.match(String(home.headers['content-security-policy']), /img-src 'self' data:;/, 'pictures only from here');
    const rows = await t.db.query('SELECT id_hash FROM dashboard_sessions');
    assert.ok(
      rows.every((r) => r.id_hash !== a.cookies.get('pod_session')),
      'only the hash of the id is stored',
    );
  });

  it('refuses a wrong password and an unknown e-mail with the same message', async () => {
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    const wrong = await a.post('/dashboard/sign-in', {
      _csrf: csrfOf(page.body),
      email: PARTNER.email,
      password: 'not-the-password',
    });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /The e-mail or password is wrong/);
    assert.ok(!a.cookies.has('pod_session'));
    const unknown = await a.post('/dashboard/sign-in', {
      _csrf: csrfOf(page.body),
      email: 'nobody@example.com',
      password: 'whatever-password',
    });
    assert.equal(unknown.statusCode, 401);
    assert.match(unknown.body, /The e-mail or password is wrong/);
    const empty = await a.post('/dashboard/sign-in', { _csrf: csrfOf(page.body) });
    assert.equal(empty.statusCode, 401);
  });

  it('after 5 failures from one network an e-mail waits, longer with each failure; a success clears it', async () => {
    const user = { email: 'lock-me@demo-cases.example', password: 'a-good-password' };
    assert.equal(
      (await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/users`, user)).statusCode,
      200,
    );
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    const attempt = (password: string) =>
      a.post('/dashboard/sign-in', { _csrf: csrfOf(page.body), email: user.email, password });
    for (let i = 0; i < 5; i++) assert.equal((await attempt('wrong-password')).statusCode, 401);
    const waiting = await attempt(user.password);
    assert.equal(waiting.statusCode, 429, 'even the right password waits: no oracle');
    assert.match(waiting.body, /Too many failed sign-ins. Try again in 30 seconds/);
    assert.equal(waiting.headers['retry-after'], '30');
    assert.ok(!a.cookies.has('pod_session'));
    t.clock.advance(31_000);
    assert.equal((await attempt('wrong-again-1')).statusCode, 401, 'one try after the delay');
    const longer = await attempt(user.password);
    assert.equal(longer.statusCode, 429);
    assert.equal(longer.headers['retry-after'], '60', 'the delay doubles');
    t.clock.advance(61_000);
    assert.equal((await attempt(user.password)).statusCode, 303, 'in after the delay');
    // A success clears the count: four new failures do not delay.
    const b = new Agent(t);
    const p2 = await b.get('/dashboard/sign-in');
    for (let i = 0; i < 4; i++)
      assert.equal(
        (await b.post('/dashboard/sign-in', { _csrf: csrfOf(p2.body), email: user.email, password: 'nope-nope-nope' }))
          .statusCode,
        401,
      );
    assert.equal(
      (await b.post('/dashboard/sign-in', { _csrf: csrfOf(p2.body), email: user.email, password: user.password }))
        .statusCode,
      303,
    );
  });

  it('counts attempts atomically: 150 concurrent wrong passwords get at most 5 password checks', async () => {
    const email = 'race@demo-cases.example';
    await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/users`, {
      email,
      password: 'the-real-password',
    });
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        t.s.dashboard.signIn({ email, password: `wrong-${i}`, ip: `198.51.${i % 2}.7` }).then(
          () => 'in',
          (e) => String(e.status),
        ),
      ),
    );
    const checked = results.filter((r) => r === '401').length;
    assert.ok(checked <= 10, `${checked} password checks (5 per network, two networks)`);
    assert.equal(results.filter((r) => r === 'in').length, 0);
  });

  it("an attacker's failures do not lock the owner out from another network", async () => {
    const email = 'victim@demo-cases.example';
    await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/users`, {
      email,
      password: 'victims-password',
    });
    for (let i = 0; i < 8; i++)
      await t.s.dashboard.signIn({ email, password: 'guess', ip: '203.0.113.66' }).catch(() => {});
    await assert.rejects(
      () => t.s.dashboard.signIn({ email, password: 'victims-password', ip: '203.0.113.99' }),
      (e: any) => e.status === 429,
      "the attacker's network waits, even with the right password",
    );
    const owner = await t.s.dashboard.signIn({ email, password: 'victims-password', ip: '192.0.2.10' });
    assert.ok(owner.session, 'the owner signs in from home');
  });

  it('throttles one client network across e-mails', async () => {
    const results: number[] = [];
    for (let i = 0; i < 25; i++)
      results.push(
        await t.s.dashboard.signIn({ email: `spray-${i}@example.com`, password: 'x', ip: '2001:db8:aa:bb::1' }).then(
          () => 200,
          (e) => e.status,
        ),
      );
    assert.ok(results.includes(429), 'the sprayer is slowed');
    assert.ok(results.filter((s) => s === 401).length <= 20);
    const other = await t.s.dashboard
      .signIn({ email: 'spray-0@example.com', password: 'x', ip: '2001:db8:cc:dd::1' })
      .then(
        () => 200,
        (e) => e.status,
      );
    assert.equal(other, 401, 'another network is not affected');
  });

  it('does not lock for failures spread wider than the window', async () => {
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    for (let i = 0; i < 6; i++) {
      assert.equal(
        (
          await a.post('/dashboard/sign-in', {
            _csrf: csrfOf(page.body),
            email: OPERATOR_USER.email,
            password: 'wrong-password',
          })
        ).statusCode,
        401,
      );
      t.clock.advance(FAILURE_WINDOW_MS / 4 + 1000);
    }
    await a.signIn(OPERATOR_USER, 'console');
  });

  it('refuses a sign-in without the form token (login CSRF)', async () => {
    const a = new Agent(t);
    const res = await a.post('/dashboard/sign-in', { email: PARTNER.email, password: PARTNER.password });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /security token/);
    assert.ok(!a.cookies.has('pod_session'));
  });

  it('redirects to sign-in without a session and back to the page after it', async () => {
    const a = new Agent(t);
    const res = await a.get('/dashboard/stores');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in?next=%2Fdashboard%2Fstores');
    const page = await a.get(res.headers.location as string);
    assert.match(page.body, /name="next" value="\/dashboard\/stores"/);
    const done = await a.post('/dashboard/sign-in', {
      _csrf: csrfOf(page.body),
      email: PARTNER.email,
      password: PARTNER.password,
      next: '/dashboard/stores',
    });
    assert.equal(done.headers.location, '/dashboard/stores');
    const evil = new Agent(t);
    const p2 = await evil.get('/dashboard/sign-in');
    const off = await evil.post('/dashboard/sign-in', {
      _csrf: csrfOf(p2.body),
      email: PARTNER.email,
      password: PARTNER.password,
      next: '//evil.example/x',
    });
    assert.equal(off.headers.location, '/dashboard', 'no open redirect');
  });

  it('signs out: the session is deleted and the old cookie no longer works', async () => {
    const a = await signedIn(t);
    const old = a.cookies.get('pod_session')!;
    const before = (await t.db.query('SELECT count(*)::int AS n FROM dashboard_sessions'))[0].n;
    const res = await a.submit('/dashboard/sign-out', {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in');
    assert.ok(
      a.setCookies.some((c) => c.startsWith('pod_session=;')),
      'cookie cleared',
    );
    assert.equal((await t.db.query('SELECT count(*)::int AS n FROM dashboard_sessions'))[0].n, before - 1);
    a.cookies.set('pod_session', old);
    assert.equal((await a.get('/dashboard')).statusCode, 303);
  });

  it('keeps an active session going, but not past 7 days after sign-in', async () => {
    const a = await signedIn(t);
    const step = 8 * 3600_000;
    for (let i = 1; i * step < SESSION_MAX_MS; i++) {
      t.clock.advance(step);
      assert.equal((await a.get('/dashboard')).statusCode, 200, `visit after ${i * 8} hours`);
    }
    // Visited 8 hours ago (within the idle limit), but the 7 days since sign-in have run out.
    t.clock.advance(step + 1000);
    assert.equal((await a.get('/dashboard')).statusCode, 303, 'absolute limit');
  });

  it('ends an idle session after 12 hours', async () => {
    const a = await signedIn(t);
    assert.equal((await a.get('/dashboard')).statusCode, 200);
    t.clock.advance(SESSION_IDLE_MS + 1000);
    assert.equal((await a.get('/dashboard')).statusCode, 303);
  });

  it('keeps partners out of the console and operators out of the partner pages', async () => {
    const partner = await signedIn(t);
    for (const url of ['/console', '/console/catalog', '/console/jobs', '/console/production', '/console/claims']) {
      const res = await partner.get(url);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /operator console is for the service/);
    }
    const op = await signedIn(t, OPERATOR_USER, 'console');
    assert.equal((await op.get('/console')).statusCode, 200);
    assert.equal((await op.get('/dashboard/stores')).statusCode, 403);
  });

  it('serves the dashboard pages as HTML outside the OpenAPI document, and keeps the JSON API at 415 for forms', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/v2/openapi.json' });
    assert.ok(!Object.keys(JSON.parse(doc.body).paths).some((p) => p.includes('dashboard') || p.includes('console')));
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/webhook-endpoints',
      headers: { 'x-service-secret-key': t.key, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=b',
    });
    assert.equal(res.statusCode, 415);
  });
});

describe('dashboard behind https', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://partners.example' } });
  });
  after(() => t.close());

  it('flags the session cookie Secure', async () => {
    const a = new Agent(t);
    await a.signIn(PARTNER);
    const cookie = a.setCookies.find((c) => c.startsWith('pod_session='))!;
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /HttpOnly/);
  });
});

describe('dashboard unknown pages', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('answers an unknown dashboard or console page with an HTML 404, and the API keeps its JSON 404', async () => {
    for (const url of ['/dashboard/nope', '/console/nope/deeper']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /text\/html/);
      assert.match(res.body, /There is no page/);
    }
    const api = await t.app.inject({ method: 'GET', url: '/v2/nope', headers: { 'x-service-secret-key': t.key } });
    assert.equal(api.statusCode, 404);
    assert.equal(JSON.parse(api.body).code, 'not_found');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/nope' })).headers['content-type'],
      'application/json; charset=utf-8',
    );
  });
});

describe('dashboard in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());

  it('shows no test banner and offers no test helpers', async () => {
    const a = await signedIn(t);
    const home = await a.get('/dashboard');
    assert.equal(home.statusCode, 200);
    assert.doesNotMatch(home.body, /Test environment/);
    const csrf = csrfOf(home.body);
    for (const url of [
      `/dashboard/orders/Order_${'0'.repeat(26)}/start-production`,
      `/dashboard/orders/Order_${'0'.repeat(26)}/ship`,
      `/dashboard/claims/Claim_${'0'.repeat(26)}/decide`,
    ]) {
      const res = await a.post(url, { _csrf: csrf });
      assert.equal(res.statusCode, 404, url);
    }
  });
});
