import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { OperatorClient } from './client.ts';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';
import { registerStationCommands } from './stations.ts';

/** Writes a ready file to `dir`; returns its path. */
async function save(c: OperatorClient, path: string, dir: string, name: string): Promise<string> {
  const res = await c.download(path);
  expectOk(res);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, res.bytes);
  return file;
}

/** The factory's files: print files per order line, labels and packing slips per shipment. */
export function registerProductionCommands(program: Command, ctx: CliContext): void {
  const production = program
    .command('production')
    .description(
      'production: the fulfilment queue, print files, shipping labels, packing slips, and the floor’s scan stations',
    );
  registerStationCommands(production, ctx);
  production
    .command('queue')
    .description('orders waiting for production, in production and ready to ship, with the state of their print files')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json) => {
        const q = expectOk(await c.request('GET', '/fulfilment-queue'));
        const rows = (['waiting', 'inProduction', 'readyToShip'] as const).flatMap((stage) =>
          q[stage].map((o: any) => ({
            stage,
            order: o.reference,
            code: o.legacyOrderCode,
            organization: o.organizationName,
            shipping: o.shippingLevel ?? o.shippingKind,
            printFiles: o.printFiles.map((f: any) => `${f.orderlineIndex}:${f.status}`).join(' ') || '-',
          })),
        );
        ctx.print(json, q, rows);
      }),
    );
  production
    .command('print-files <orderReference>')
    .description("list an order's print files; --out saves the ready ones as PDFs")
    .option('--out <dir>', 'folder to save the PDFs in')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, ref: string, o: { out?: string }) => {
        const base = `/orders/${encodeURIComponent(ref)}/print-files`;
        const data = expectOk(await c.request('GET', base));
        const rows = [];
        for (const f of data.printFiles) {
          const saved =
            o.out && f.status === 'ready'
              ? await save(
                  c,
                  `${base}/${f.orderlineIndex}`,
                  o.out,
                  `${data.orderReference}-line-${f.orderlineIndex}.pdf`,
                )
              : null;
          rows.push({
            line: f.orderlineIndex,
            copies: f.copies,
            status: f.status,
            size: f.size,
            error: f.error,
            saved,
          });
        }
        ctx.print(json, data, rows, ['line', 'copies', 'status', 'size', 'error', ...(o.out ? ['saved'] : [])]);
      }),
    );
  production
    .command('documents <shipmentReference>')
    .description("list a shipment's shipping label and packing slip; --out saves them as PDFs")
    .option('--out <dir>', 'folder to save the PDFs in')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, ref: string, o: { out?: string }) => {
        const base = `/shipments/${encodeURIComponent(ref)}/documents`;
        const data = expectOk(await c.request('GET', base));
        const rows = [];
        for (const d of data.documents) {
          const slug = String(d.kind).replace('_', '-');
          const saved =
            o.out && d.status === 'ready'
              ? await save(c, `${base}/${slug}`, o.out, `${data.shipmentReference}-${slug}.pdf`)
              : null;
          rows.push({ kind: d.kind, status: d.status, size: d.size, error: d.error, saved });
        }
        ctx.print(json, data, rows, ['kind', 'status', 'size', 'error', ...(o.out ? ['saved'] : [])]);
      }),
    );
  production
    .command('remake <reference>')
    .description("make an order's print files (Order_…) or a shipment's label and slip (Shipment_…) again")
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, ref: string) => {
        const path = ref.startsWith('Shipment_')
          ? `/shipments/${encodeURIComponent(ref)}/documents`
          : `/orders/${encodeURIComponent(ref)}/print-files`;
        ctx.print(json, expectOk(await c.request('POST', path)));
      }),
    );
  production
    .command('produced <orderReference>')
    .description('mark an order in production as produced: it is ready to ship')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, ref: string) => {
        expectOk(await c.request('POST', `/orders/${encodeURIComponent(ref)}/produced`));
        ctx.print(json, { orderReference: ref, produced: true });
      }),
    );
}
