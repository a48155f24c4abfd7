import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { rowsInPorts } from '../support/rows-in-ports.ts';

/**
 * A module reads another module's data through the read models that module exports (named types
 * of its own), never through its tables or its row types (docs/decisions/0481).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const MODULES = join(ROOT, 'src', 'modules');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const moduleOf = (file: string) => relative(MODULES, file).split(sep)[0];
/** The file without its comments, so prose about a table or a type is not taken for code. */
const code = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

/** Every name one file imports (or re-exports) from a file of another module. */
function foreignImports(file: string): Array<{ from: string; name: string }> {
  const out: Array<{ from: string; name: string }> = [];
  for (const m of code(file).matchAll(/\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']*)'/g)) {
    const target = resolve(dirname(file), m[2]);
    if (!target.startsWith(MODULES + sep) || moduleOf(target) === moduleOf(file)) continue;
    const from = relative(MODULES, target).split(sep).join('/');
    for (const part of m[1].split(',')) {
      // `type A as B`, `A as B`, `type A`: the name as the other file exports it.
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim();
      if (name) out.push({ from, name });
    }
  }
  return out;
}

/** Type aliases a file declares for a row type: `type OrderRecord = OrderRow`. */
const rowAliases = (file: string) =>
  new Set([...code(file).matchAll(/\btype\s+(\w+)\s*=\s*\w+Row\s*;/g)].map((m) => m[1]));

const TABLES = new Set(
  readdirSync(join(ROOT, 'migrations'))
    .filter((f) => f.endsWith('.sql'))
    .flatMap((f) => [
      ...readFileSync(join(ROOT, 'migrations', f), 'utf8').matchAll(/create table (?:if not exists )?([a-z_0-9]+)/gi),
    ])
    .map((m) => m[1].toLowerCase()),
);

/** The tables a file's SQL names after FROM, JOIN, INTO or UPDATE, in any case. */
const tablesNamed = (file: string) =>
  new Set(
    [...code(file).matchAll(/\b(?:from|join|into|update)\s+([a-z_][a-z_0-9]*)/gi)]
      .map((m) => m[1].toLowerCase())
      .filter((t) => TABLES.has(t)),
  );

describe('module borders', () => {
  const files = tsFiles(MODULES);

  it("the dashboard's SQL names only the dashboard's own tables", () => {
    const dashboard = files.filter((f) => moduleOf(f) === 'dashboard');
    const named = new Map(dashboard.map((f) => [relative(ROOT, f), [...tablesNamed(f)]]));
    // The scanner sees the dashboard's own SQL, so an empty result below means something.
    assert.ok(named.get(join('src', 'modules', 'dashboard', 'repo.ts'))?.includes('dashboard_users'));
    const foreign = [...named].flatMap(([f, tables]) =>
      tables.filter((t) => !t.startsWith('dashboard_')).map((t) => `${f}: ${t}`),
    );
    assert.deepEqual(foreign, [], "another module's table: read it through that module's read model instead");
  });

  it("no module imports another module's row type", () => {
    const rows = files.flatMap((f) =>
      foreignImports(f)
        .filter((i) => /Row$/.test(i.name))
        .map((i) => `${relative(ROOT, f)} imports ${i.name} from ${i.from}`),
    );
    assert.deepEqual(rows, []);
  });

  it("no port hands over another module's row, declared or inferred", () => {
    const { functions, rows } = rowsInPorts(ROOT);
    // The ports were read: every module's deps.ts names functions of other modules.
    assert.ok(functions > 100, `only ${functions} functions of other modules found in the ports`);
    assert.deepEqual(
      rows.map((r) => `${r.where} ${r.row}`),
      [],
      'export a read model of named fields from the owner and hand that over instead of the row',
    );
  });

  it('no module imports a row under another name', () => {
    const aliases = new Map(files.map((f) => [relative(MODULES, f).split(sep).join('/'), rowAliases(f)]));
    const imported = files.flatMap((f) =>
      foreignImports(f)
        .filter((i) => aliases.get(i.from)?.has(i.name))
        .map((i) => `${relative(ROOT, f)} imports ${i.from} ${i.name}`),
    );
    assert.deepEqual(imported, [], 'export a read model of named fields instead of an alias of the row');
  });
});
