import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { EXAMPLES, addExamples, commandPath } from '../../src/cli/examples.ts';
import { operator } from '../support/app.ts';
import { podctl, podctlSuite } from '../support/podctl.ts';

describe('podctl', () => {
  const server = podctlSuite('podctl-');

  it('takes an organization as reference, store code or exact name', async () => {
    const org = server.t.seed.organizations[0];
    // (the reference needs no lookup beyond the one the other two make)
    for (const given of [org.stores[0].code, org.name]) {
      const res = await server.run('orgs', 'show', given, '--json');
      assert.equal(res.code, 0, res.stderr);
      assert.equal(JSON.parse(res.stdout).organization.reference, org.reference, given);
    }
  });

  it('takes a store as reference, code or exact name', async () => {
    const org = server.t.seed.organizations[0];
    const store = org.stores[1];
    const name = (await operator(server.t, 'GET', `/organizations/${org.reference}/stores?limit=100`)).data.stores.find(
      (s: { reference: string }) => s.reference === store.reference,
    ).name;
    // By its name (reference and code take the same path through /operator/resolve).
    const callback = 'https://shop.example/callback-by-name';
    const res = await server.run('stores', 'set-callback', org.stores[0].code, name, callback, '--json');
    assert.equal(res.code, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).store.reference, store.reference);
    assert.equal(JSON.parse(res.stdout).store.callbackUrl, callback);
  });

  it('an ambiguous name is an error listing the candidates; an unknown one says what it tried', async () => {
    const a = await operator(server.t, 'POST', '/organizations', { name: 'Twin Cases' });
    const b = await operator(server.t, 'POST', '/organizations', { name: 'Twin Cases' });
    const res = await server.run('orgs', 'show', 'Twin Cases');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /^error: ambiguous_name: 2 organizations are named "Twin Cases"/);
    assert.ok(res.stderr.includes(a.data.organization.reference) && res.stderr.includes(b.data.organization.reference));
    assert.equal(res.stderr.trim().split('\n').length, 1);
    const none = await server.run('orgs', 'show', 'No Such Org');
    assert.equal(none.code, 1);
    assert.match(none.stderr, /reference, store code or name "No Such Org" not found/);
  });

  it('prints JSON only with --json', async () => {
    const org = server.t.seed.organizations[0].reference;
    const table = await server.run('keys', 'list', org);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^reference\s+name\s+hint/);
    assert.throws(() => JSON.parse(table.stdout));
    // Commands without a list (here a decision-less one: the claim categories' add) print fields.
    const added = await server.run('claims', 'categories', 'add', `Scratched ${Date.now()}`);
    assert.equal(added.code, 0, added.stderr);
    assert.doesNotMatch(added.stdout, /^\s*[{[]/);
  });

  it('with no server and no database it stops, says where it looked, and creates nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'podctl-empty-'));
    try {
      const res = await podctl(['orgs', 'list'], { DATA_DIR: empty });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /no server and no database found/);
      assert.ok(res.stderr.includes(join(empty, 'server.lock')));
      assert.ok(res.stderr.includes(join(empty, 'pglite')));
      assert.match(res.stderr, /--init/);
      assert.equal(existsSync(join(empty, 'pglite')), false, 'no database was created');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('--init creates the embedded database', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'podctl-init-'));
    try {
      const res = await podctl(['--init', 'orgs', 'list', '--json'], { DATA_DIR: fresh });
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout).organizations, []);
      assert.ok(existsSync(join(fresh, 'pglite', 'PG_VERSION')));
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('every command has an example in its --help', async () => {
    // podctl refuses to start when a command has no example (addExamples), so a working --help
    // proves them all; one command's help is read end to end, and an unlisted command fails.
    const res = await podctl(['claims', 'categories', 'add', '--help'], {});
    assert.match(res.stdout, /Example:\n {2}\$ podctl claims categories add/);
    for (const [path, example] of Object.entries(EXAMPLES)) assert.ok(example.startsWith(`podctl ${path}`), path);
    const program = new Command('podctl');
    program.command('orgs').command('frobnicate');
    assert.equal(commandPath(program.commands[0].commands[0]), 'orgs frobnicate');
    assert.throws(() => addExamples(program), /podctl orgs frobnicate has no example/);
  });
});
