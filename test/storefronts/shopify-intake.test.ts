import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storefrontsRepo } from '../../src/modules/storefronts/repo.ts';
import { products } from '../orders/helpers.ts';
import type { TestApp } from '../support/app.ts';
import { ORDER_EXAMPLE, SHOP, shopifyTestApp } from './helpers.ts';

describe('Shopify webhooks committed in groups', () => {
  let app: Awaited<ReturnType<typeof shopifyTestApp>>;
  let t: TestApp;
  let store: string;
  let n = 0;

  /** The example as a new Shopify order, sent with the webhook id given; resolves to its answer. */
  function webhook(deliveryId: string, note: string | null = null) {
    n += 1;
    const o = structuredClone(ORDER_EXAMPLE);
    o.note = note;
    o.admin_graphql_api_id = `gid://shopify/Order/${5_500_000_000_000 + n}`;
    o.id = 5_500_000_000_000 + n;
    o.line_items[0].sku = products(t).protector;
    o.shipping_address.country_code = 'NL';
    return app.orderWebhook(o, deliveryId);
  }

  /**
   * Sends the deliveries while another transaction holds the inbox, so that they wait for the writer
   * together and go into the same batches; checks that none is answered while it is held.
   */
  async function sendTogether(ids: string[]) {
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const held = t.db.tx(async (tx) => {
      await tx.query('LOCK TABLE storefront_inbox IN EXCLUSIVE MODE');
      locked();
      await gate;
    });
    await isLocked;
    let answered = 0;
    const answers = ids.map((id) =>
      webhook(id).then((res) => {
        answered += 1;
        return res;
      }),
    );
    // Time for every delivery to pass its checks and wait for the writer.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(answered, 0, 'no delivery is answered before its commit');
    release();
    await held;
    return Promise.all(answers);
  }

  const stored = (keys: string[]) =>
    t.db.query<{ id: string; delivery_key: string; xmin: string; jobs: number }>(
      `SELECT i.id, i.delivery_key, i.xmin::text AS xmin,
              (SELECT count(*)::int FROM jobs j WHERE j.kind = 'storefronts.inbox' AND j.payload->>'inboxId' = i.id) AS jobs
         FROM storefront_inbox i WHERE i.delivery_key = ANY($1::text[]) ORDER BY i.seq`,
      [keys.map((k) => `event-${k}`)],
    );

  before(async () => {
    app = await shopifyTestApp();
    ({ t, store } = app);
    assert.equal((await webhook('warm-up')).statusCode, 200);
  });
  after(() => app.close());

  it('stores a group in one transaction, a key twice in it once, with one job each, answered after the commit', async () => {
    const keys = ['g-1', 'g-2', 'g-3', 'g-4', 'g-5', 'g-6', 'g-7', 'g-8'];
    const ids = [...keys, 'g-3', 'g-7'];
    const answers = await sendTogether(ids);
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    for (const key of keys) {
      const flags = answers.filter((_, i) => ids[i] === key).map((res) => res.json().duplicate);
      assert.deepEqual(flags.sort(), key === 'g-3' || key === 'g-7' ? [false, true] : [false], key);
    }
    const rows = await stored(keys);
    assert.deepEqual(rows.map((r) => r.delivery_key).sort(), keys.map((k) => `event-${k}`).sort());
    for (const r of rows) assert.equal(r.jobs, 1, `${r.delivery_key} has its job`);
    const transactions = new Set(rows.map((r) => r.xmin)).size;
    assert.ok(transactions < rows.length, `${rows.length} deliveries in ${transactions} transactions`);
  });

  /** The note of the payload stored under a delivery key, as PostgreSQL reads it back from jsonb. */
  const storedNote = async (deliveryKey: string) =>
    (
      await t.db.query<{ note: string }>(
        `SELECT payload->>'note' AS note FROM storefront_inbox WHERE delivery_key = $1`,
        [deliveryKey],
      )
    )[0];

  it('stores a payload whose text has a backslash before "u0000": only a NUL character is refused', async () => {
    const nul = await webhook('nul', 'a\u0000b');
    assert.equal(nul.statusCode, 400);
    assert.equal(nul.json().code, 'shopify_payload_invalid');
    const text = await webhook('not-nul', 'C:\\u0000');
    assert.equal(text.statusCode, 200, text.body);
    const row = await storedNote('event-not-nul');
    assert.equal(row.note, 'C:\\u0000');
  });

  it('refuses a payload whose escapes decode to a lone UTF-16 surrogate, storing nothing; a pair is stored', async () => {
    for (const [key, note] of [
      ['high', 'a\ud800b'],
      ['low', 'a\udfff'],
    ]) {
      const res = await webhook(`surrogate-${key}`, note);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'shopify_payload_invalid');
      assert.match(res.json().message, /body\.note is not well-formed Unicode/);
    }
    assert.deepEqual(await stored(['surrogate-high', 'surrogate-low']), []);
    const pair = await webhook('surrogate-pair', 'gift \ud83c\udf81');
    assert.equal(pair.statusCode, 200, pair.body);
    const row = await storedNote('event-surrogate-pair');
    assert.equal(row.note, 'gift 🎁');
  });

  it('refuses a fulfillment notification whose escapes decode to NUL or a lone surrogate, storing nothing', async () => {
    const notify = (message: string) => {
      const raw = JSON.stringify({ kind: 'FULFILLMENT_REQUEST', message });
      return t.app.inject({
        method: 'POST',
        url: '/integrations/shopify/fulfillment_order_notification',
        headers: app.shopify.webhookHeaders('fulfillment_order_notification', SHOP, raw),
        payload: raw,
      });
    };
    const notes = () =>
      t.db.query<{ message: string }>(
        `SELECT payload->>'message' AS message FROM storefront_inbox WHERE topic = 'fulfillment_order_notification'`,
      );
    const before = (await notes()).length;
    for (const [message, reason] of [
      ['a\u0000b', /body\.message/],
      ['a\ud800b', /body\.message is not well-formed Unicode/],
      ['a\udfff', /body\.message is not well-formed Unicode/],
    ] as const) {
      const res = await notify(message);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'shopify_payload_invalid');
      assert.match(res.json().message, reason);
    }
    assert.equal((await notes()).length, before, 'nothing stored');
    const pair = await notify('gift \ud83c\udf81');
    assert.equal(pair.statusCode, 200, pair.body);
    assert.deepEqual(
      (await notes()).map((r) => r.message).filter((m) => m !== null),
      ['gift 🎁'],
    );
  });

  it('stores a key twice in one statement once, and says which rows are new', async () => {
    const row = (id: string, key: string) => ({
      id,
      store_id: store,
      organization_id: t.seed.organizations[0].reference,
      delivery_key: key,
      topic: 'orders/create',
      payload: { id },
      received_at: new Date(),
    });
    const fresh = await t.db.tx((tx) =>
      storefrontsRepo.insertInbox(tx, [
        row('ShopifyWebhook_s1', 'same-1'),
        row('ShopifyWebhook_s2', 'same-2'),
        row('ShopifyWebhook_s3', 'same-1'),
        row('ShopifyWebhook_s4', 'event-g-1'),
      ]),
    );
    assert.deepEqual([...fresh].sort(), ['ShopifyWebhook_s1', 'ShopifyWebhook_s2']);
  });

  it('fails only the delivery the database refuses: its neighbours in the group are stored and answered', async () => {
    // A delivery the database refuses at insert, and a count of its tries (a sequence is not rolled back).
    await t.db.query(`CREATE SEQUENCE poison_tries`);
    await t.db.query(
      `CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.delivery_key = 'event-p-bad' THEN PERFORM nextval('poison_tries'); RAISE EXCEPTION 'refused'; END IF;
         RETURN NEW;
       END $$`,
    );
    await t.db.query('CREATE TRIGGER poison BEFORE INSERT ON storefront_inbox FOR EACH ROW EXECUTE FUNCTION poison()');
    try {
      const ids = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-bad'];
      const answers = await sendTogether(ids);
      for (const [i, res] of answers.entries())
        if (ids[i] === 'p-bad') assert.equal(res.statusCode, 500, 'not answered 2xx: Shopify delivers it again');
        else assert.equal(res.statusCode, 200, res.body);
      const [{ tries }] = await t.db.query<{ tries: number }>('SELECT last_value::int AS tries FROM poison_tries');
      assert.equal(tries, 2, 'refused with its group, then alone');
      const rows = await stored(ids);
      assert.deepEqual(
        rows.map((r) => r.delivery_key).sort(),
        ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'].map((k) => `event-${k}`),
      );
      for (const r of rows) assert.equal(r.jobs, 1);
    } finally {
      await t.db.query('DROP TRIGGER poison ON storefront_inbox');
      await t.db.query('DROP FUNCTION poison()');
      await t.db.query('DROP SEQUENCE poison_tries');
    }
  });
});
