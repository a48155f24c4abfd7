import type { Command } from 'commander';
import type { CliContext } from './context.ts';
import { readFileSync } from 'node:fs';
import { CliError } from './client.ts';
import { expectOk } from './output.ts';

/** Production fulfilment (what the test helpers stand in for in the test environment). */
export function registerFulfilmentCommands(program: Command, ctx: CliContext): void {
  const orders = program.command('orders').description('orders: fulfilment steps');
  orders
    .command('start-production <orderReference>')
    .description('move a pending or preorder order into production')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string) {
      return ctx.run(this, async (c, json) => {
        expectOk(await c.request('POST', `/orders/${encodeURIComponent(ref)}/start-production`));
        ctx.print(json, { orderReference: ref, status: 'in_production' });
      });
    });

  orders
    .command('cancel <orderReference>')
    .description(
      'cancel an order, or some of its lines, in any status before shipping (in production too): the partner gets order.updated and the callback, the account a credit for what production charged',
    )
    .requiredOption('--reason <text>', 'why: kept on the ledger entry and the stock movement')
    .option('--line <index...>', 'only these order lines (default: the whole order)')
    .option('--json', 'print JSON')
    .action(function (this: Command, ref: string, o: { reason: string; line?: string[] }) {
      return ctx.run(this, async (c, json) => {
        const lines = o.line?.map((l) => {
          if (!/^\d{1,5}$/.test(l)) throw new CliError(`--line ${l}: an order line index such as 1`);
          return Number(l);
        });
        const done = expectOk(
          await c.request('POST', `/orders/${encodeURIComponent(ref)}/cancel`, {
            reason: o.reason,
            ...(lines ? { orderlines: lines } : {}),
          }),
        );
        ctx.print(
          json,
          done,
          done.canceled.map((x: any) => ({
            order: done.orderReference,
            status: done.status,
            line: x.index,
            canceled: x.quantity,
          })),
        );
      });
    });

  const shipments = program.command('shipments').description('shipments: ship orders in production');
  shipments
    .command('create <orderReference...>')
    .description(
      'ship one dropship order, or combined orders of one store, as one shipment; fires the callback and webhooks',
    )
    .option('--carrier <name>', 'carrier (tracked and express shipments)')
    .option('--tracking-number <number>', "the carrier's tracking number (tracked and express shipments)")
    .option('--shipped-at <iso>', 'ship time (default: now)')
    .option('--json', 'print JSON')
    .action(function (
      this: Command,
      refs: string[],
      o: { carrier?: string; trackingNumber?: string; shippedAt?: string },
    ) {
      return ctx.run(this, async (c, json) => {
        const body = {
          orderReferences: refs,
          ...(o.carrier ? { carrier: o.carrier } : {}),
          ...(o.trackingNumber ? { trackingNumber: o.trackingNumber } : {}),
          ...(o.shippedAt ? { shippedAt: o.shippedAt } : {}),
        };
        const data = expectOk(await c.request('POST', '/shipments', body));
        ctx.print(json, data, [data.shipment]);
      });
    });

  shipments
    .command('tracking-events <file>')
    .description(
      "feed a carrier's tracking events: a JSON file with [{shipmentReference | trackingNumber, carrierEventId, status, occurred, location?, description?}]; each event is judged on its own",
    )
    .option('--json', 'print JSON')
    .action(function (this: Command, file: string) {
      return ctx.run(this, async (c, json) => {
        let list: unknown;
        try {
          const parsed = JSON.parse(readFileSync(file, 'utf8'));
          list = Array.isArray(parsed) ? parsed : parsed.trackingEvents;
        } catch (err) {
          throw new CliError(`${file}: not a readable JSON file (${(err as Error).message})`);
        }
        if (!Array.isArray(list)) throw new CliError(`${file}: expected a list of tracking events`);
        const data = expectOk(await c.request('POST', '/tracking-events', { trackingEvents: list }));
        ctx.print(json, data, data.results, ['index', 'result', 'shipmentReference', 'reason']);
      });
    });
}
