import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abbreviate, html, shortRef, table } from '../../src/modules/dashboard/html.ts';

describe('dashboard html helpers', () => {
  it('shortens long references and keeps short ones whole', () => {
    assert.equal(abbreviate('Order_7e3fyh40jkmgxb4dvb2qhzace0'), 'Order_7e3f…ace0');
    assert.equal(abbreviate('f7397932-68ac-45d7-9105-414d85494f96'), 'f7397932…4f96');
    assert.equal(abbreviate('rl-bad-1'), 'rl-bad-1');
    assert.equal(abbreviate('Store_abc'), 'Store_abc');
  });

  it('shows the short form, gives readers and the copy button the whole reference, and escapes it', () => {
    const out = shortRef('Order_7e3fyh40jkmgxb4dvb2qhzace0', {
      href: '/dashboard/orders/Order_7e3fyh40jkmgxb4dvb2qhzace0',
    }).value;
    assert.match(out, /<code aria-hidden="true"[^>]*>Order_7e3f…ace0<\/code>/);
    assert.match(out, /<span class="sr-only">Order_7e3fyh40jkmgxb4dvb2qhzace0<\/span>/);
    assert.match(out, /data-copy-value="Order_7e3fyh40jkmgxb4dvb2qhzace0"/);
    assert.match(out, /<a href="\/dashboard\/orders\/Order_7e3fyh40jkmgxb4dvb2qhzace0">/);
    const evil = shortRef('"><script>alert(1)</script>', { href: 'javascript:alert(1)' }).value;
    assert.doesNotMatch(evil, /<script>|javascript:/);
  });

  it('labels every cell with its column so a phone can show rows as cards', () => {
    const out = table(
      ['Name', '', 'Status'],
      [
        html`<tr><td>a</td><td>b</td><td class="x">c</td></tr>`,
        html`<tr><th scope="row">h</th><td>b</td><td>c</td></tr>`,
      ],
    ).value;
    assert.match(out, /<tr><td data-label="Name">a<\/td><td>b<\/td><td data-label="Status" class="x">c<\/td><\/tr>/);
    assert.match(
      out,
      /<th scope="row">h<\/th><td>b<\/td><td data-label="Status">c<\/td>/,
      'a row header takes its column',
    );
    assert.match(table(['<b>'], [html`<tr><td>x</td></tr>`]).value, /data-label="&lt;b&gt;"/);
    assert.match(table(['A'], [], { empty: 'Add one first.' }).value, /<p class="empty">Add one first.<\/p>/);
  });
});
