import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { CliError } from './client.ts';
import { type CliContext, parseJsonOption } from './context.ts';
import { expectOk } from './output.ts';

/** `file: {path}` entries are read here, next to the catalog file, and sent as base64. */
function inlineFiles(doc: any, baseDir: string): boolean {
  let found = false;
  const inline = (entry: any, where: string) => {
    if (!entry?.file || typeof entry.file !== 'object' || typeof entry.file.path !== 'string') return;
    const path = resolve(baseDir, entry.file.path);
    if (!existsSync(path)) throw new CliError(`${where}.file.path: ${path} does not exist`);
    entry.file = { base64: readFileSync(path).toString('base64') };
    found = true;
  };
  for (const [i, p] of (Array.isArray(doc?.products) ? doc.products : []).entries()) {
    for (const [j, l] of (Array.isArray(p?.layers) ? p.layers : []).entries()) inline(l, `products[${i}].layers[${j}]`);
    for (const [j, m] of (Array.isArray(p?.media) ? p.media : []).entries()) inline(m, `products[${i}].media[${j}]`);
  }
  return found;
}

const PRODUCT_COLUMNS = [
  'reference',
  'legacyItemSKU',
  'name',
  'status',
  'printable',
  'availableQuantity',
  'privateOrganizationReference',
];

/** Catalog import and product changes (docs/catalog-import.md). */
export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  const catalog = program.command('catalog').description('catalog: import a catalog file, change products and stock');

  catalogFileCommands(catalog, ctx);
  productChangeCommands(catalog, ctx);
}

/** Importing a catalog file, advancing the lifecycle, and reading products. */
function catalogFileCommands(catalog: Command, ctx: CliContext): void {
  catalog
    .command('import <file>')
    .description('apply a catalog file (JSON or YAML), or a device table (a list); safe to re-apply')
    .option('--json', 'print JSON')
    .action(function (this: Command, file: string) {
      return ctx.run(this, async (c, json) => {
        if (!existsSync(file)) throw new CliError(`${file} does not exist`);
        const text = readFileSync(file, 'utf8');
        const yaml = ['.yaml', '.yml'].includes(extname(file).toLowerCase());
        let doc: unknown;
        try {
          doc = yaml ? parseYaml(text) : JSON.parse(text);
        } catch (err) {
          throw new CliError(
            `${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(err as Error).message.split('\n')[0]}`,
          );
        }
        // A bare list is a device table (src/modules/catalog/devices.json has that shape).
        const table = Array.isArray(doc);
        if (table) doc = { devices: doc };
        // Plain YAML goes as it is; with local files to inline it is sent as JSON.
        const inlined = inlineFiles(doc, dirname(resolve(file)));
        const res =
          yaml && !inlined && !table
            ? await c.request('POST', '/catalog/import', text, 'application/yaml')
            : await c.request('POST', '/catalog/import', doc);
        const data = expectOk(res);
        const rows = Object.entries(data.summary).map(([kind, n]) => ({ kind, ...(n as object) }));
        ctx.print(json, data, rows, ['kind', 'created', 'updated', 'unchanged']);
      });
    });

  catalog
    .command('advance')
    .description('move products with a device to their lifecycle stage on a date (forward only)')
    .option('--date <YYYY-MM-DD>', 'catalog date (default: today)')
    .option('--json', 'print JSON')
    .action(function (this: Command, opts: { date?: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(
          await c.request('POST', '/catalog/lifecycle', opts.date ? { catalogDate: opts.date } : {}),
        );
        ctx.print(json, data, data.moved, ['reference', 'name', 'from', 'to']);
      });
    });

  catalog
    .command('products')
    .description('every product, archived and private ones included')
    .option('--json', 'print JSON')
    .action(function (this: Command) {
      return ctx.run(this, async (c, json) => {
        const all: any[] = [];
        let cursor: string | null = null;
        do {
          const data = expectOk(
            await c.request(
              'GET',
              `/catalog/products?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            ),
          );
          all.push(...data.products);
          cursor = data.nextCursor;
        } while (cursor);
        ctx.print(json, { products: all }, all, PRODUCT_COLUMNS);
      });
    });

  catalog
    .command('show <product>')
    .description('one product with layers, print and media')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', `/catalog/products/${encodeURIComponent(ref)}`));
        ctx.print(json, json ? data : data.product);
      });
    });
}

/** Changing one product (status, print, layers) or an item's stock. */
function productChangeCommands(catalog: Command, ctx: CliContext): void {
  catalog
    .command('set-status <product> <status>')
    .description('move a product forward: announced, prelaunched, launched, sunsetted, ended, archived')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string, status: string) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('PATCH', `/catalog/products/${encodeURIComponent(ref)}`, { status }));
        ctx.print(json, data, [data.product], ['reference', 'name', 'status']);
      });
    });

  catalog
    .command('set-print <product>')
    .description('set print dimensions (changes printModified)')
    .option('--spec <json>', '{"widthMm":78.1,"heightMm":153.8,"widthPx":1845,"heightPx":3633,"dpi":600}')
    .option('--none', 'remove the specification (announced products only)')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string, o: { spec?: string; none?: boolean }) {
      return ctx.run(this, async (c, json) => {
        if (!o.spec && !o.none) throw new CliError('give --spec <json> or --none');
        const print_ = o.none ? null : parseJsonOption(o.spec!, '--spec');
        const data = expectOk(
          await c.request('PATCH', `/catalog/products/${encodeURIComponent(ref)}`, { print: print_ }),
        );
        ctx.print(json, data, [data.product], ['reference', 'name', 'printModified']);
      });
    });

  catalog
    .command('set-layers <product> <layers...>')
    .description('replace the layer images, each as name=path/to/file.png (changes layersModified)')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string, specs: string[]) {
      return ctx.run(this, async (c, json) => {
        const layers = specs.map((spec) => {
          const eq = spec.indexOf('=');
          if (eq < 1) throw new CliError(`"${spec}" is not name=path`);
          const path = spec.slice(eq + 1);
          if (!existsSync(path)) throw new CliError(`${path} does not exist`);
          return { name: spec.slice(0, eq), file: { base64: readFileSync(path).toString('base64') } };
        });
        const data = expectOk(await c.request('PATCH', `/catalog/products/${encodeURIComponent(ref)}`, { layers }));
        ctx.print(json, data, [data.product], ['reference', 'name', 'layersModified']);
      });
    });

  catalog
    .command('set-stock <item> <logicalQuantity>')
    .description('stock of a warehouse item (SKU or reference); all its products follow')
    .option('--physical <n>', 'physical quantity')
    .option('--json', 'print JSON')
    .action(function (this: Command, item: string, logical: string, o: { physical?: string }) {
      return ctx.run(this, async (c, json) => {
        const n = (v: string, name: string) => {
          if (!/^\d+$/.test(v)) throw new CliError(`${name} must be a whole number ≥ 0`);
          return Number(v);
        };
        const body = {
          logicalQuantity: n(logical, 'logicalQuantity'),
          ...(o.physical !== undefined ? { physicalQuantity: n(o.physical, '--physical') } : {}),
        };
        const data = expectOk(await c.request('PUT', `/catalog/items/${encodeURIComponent(item)}/stock`, body));
        ctx.print(json, data, [data.item]);
      });
    });
}
