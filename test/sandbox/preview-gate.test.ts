import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { seeded, uploadSolid } from '../rendering/helpers.ts';

describe("live previews: one organization's flood is its own 429, not another's 503", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: 'previews=200/60' } });
  });
  after(() => t.close());

  it("answers the organization that fills the node's queue 429 and still composes the other's", async () => {
    const d = seeded(t);
    const [a, b] = [
      await uploadSolid(t, { r: 200, g: 30, b: 60 }),
      await uploadSolid(t, { r: 9, g: 9, b: 9 }, t.otherKey),
    ];
    const preview = (key: string, image: string) =>
      call(t, 'POST', '/v2/renders/preview', {
        key,
        body: { preview: { compositionReference: d.cStudioIp15, imageReference: image } },
      });
    // A asks for 24 at once, within its quota; B asks for 3 while A's are queued.
    const flood = Array.from({ length: 24 }, () => preview(t.key, a));
    const others = Array.from({ length: 3 }, () => preview(t.otherKey, b));
    const [fromA, fromB] = [await Promise.all(flood), await Promise.all(others)];
    const codes = (xs: typeof fromA) => xs.map((r) => (r.statusCode === 200 ? 200 : `${r.statusCode} ${r.data.code}`));
    assert.deepEqual(codes(fromB), [200, 200, 200], "B's previews are composed");
    const refused = fromA.filter((r) => r.statusCode !== 200);
    assert.ok(refused.length > 0, 'A holds at most its places');
    for (const r of refused) {
      assert.equal(`${r.statusCode} ${r.data.code}`, '429 rate_limited', r.body);
      assert.equal(r.headers['retry-after'], '1');
    }
    assert.ok(fromA.filter((r) => r.statusCode === 200).length >= 4, 'A gets what its places allow');
  });
});
