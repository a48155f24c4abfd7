import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { type EventModules, SUBSCRIPTIONS, wireEvents } from '../../src/events.ts';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Modules whose hooks record who subscribed, and whose listeners are named stand-ins. */
function recordingModules() {
  const subscribed: Array<{ hook: string; listener: string }> = [];
  const names = new Map<unknown, string>();
  const listener = (name: string) => {
    const fn = async () => {};
    names.set(fn, name);
    return fn;
  };
  const hook = (name: string) => (fn: unknown) => subscribed.push({ hook: name, listener: names.get(fn) ?? '?' });
  const modules: EventModules = {
    catalog: { onProductChanged: hook('catalog.onProductChanged') },
    orders: {
      onProductionStarted: hook('orders.onProductionStarted'),
      productChanged: listener('orders.productChanged'),
    },
    shipments: { onShipped: hook('shipments.onShipped') },
    production: {
      productionStarted: listener('production.productionStarted'),
      shipped: listener('production.shipped'),
    },
    webhooks: { productUpdated: listener('webhooks.productUpdated') },
    storefronts: { productChanged: listener('storefronts.productChanged') },
  };
  return { modules, subscribed };
}

describe('the events wiring', () => {
  it('subscribes exactly the listeners it lists, each to its hook, in the order listed', () => {
    const { modules, subscribed } = recordingModules();
    wireEvents(modules);
    assert.deepEqual(
      subscribed,
      SUBSCRIPTIONS.map(({ hook, listener }) => ({ hook, listener })),
    );
  });

  it('is the only place that subscribes to a hook', () => {
    const hooks = [...new Set(SUBSCRIPTIONS.map((s) => s.hook.split('.')[1]))];
    const elsewhere: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (file === join(SRC, 'events.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const hook of hooks)
        if (new RegExp(`\\.${hook}\\(`).test(text)) elsewhere.push(`${relative(SRC, file)}: ${hook}`);
    }
    assert.deepEqual(elsewhere, []);
  });

  it('lists every hook a module offers', () => {
    const listed = new Set(SUBSCRIPTIONS.map((s) => s.hook.split('.')[1]));
    const offered: string[] = [];
    for (const file of sourceFiles(join(SRC, 'modules'))) {
      // A hook: a method named on… that takes a listener and keeps it.
      for (const m of readFileSync(file, 'utf8').matchAll(/^\s+(on[A-Z]\w*)\(listener: \w+\): void \{/gm))
        offered.push(m[1]);
    }
    assert.ok(offered.length >= listed.size, `hooks found: ${offered.join(', ')}`);
    for (const hook of offered) assert.ok(listed.has(hook), `${hook} has no line in src/events.ts`);
  });
});
