import type { Command } from 'commander';
import { CliError } from './client.ts';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';

const whole = (v: string, name: string, opts: { signed?: boolean; min?: number } = {}) => {
  if (!(opts.signed ? /^-?\d+$/ : /^\d+$/).test(v)) throw new CliError(`${name} must be a whole number`);
  const n = Number(v);
  if (opts.min !== undefined && n < opts.min) throw new CliError(`${name} must be at least ${opts.min}`);
  return n;
};
const enc = encodeURIComponent;

/** Stock, money and integrators (docs/operations-business.md). */
export function registerBusinessCommands(program: Command, ctx: CliContext): void {
  registerStockCommands(program, ctx);
  registerLedgerCommands(program, ctx);
  registerInvoicesCommands(program, ctx);
  registerIntegratorsCommands(program, ctx);
}

/** Warehouse stock: receive, correct, read the stock ledger. */
function registerStockCommands(program: Command, ctx: CliContext): void {
  const stock = program.command('stock').description('warehouse stock: receive, correct, read the stock ledger');
  stock
    .command('receive <item> <quantity>')
    .description('goods arrived for an item (SKU or reference): both quantities go up')
    .option('--reason <text>', 'kept in the stock ledger', 'goods received')
    .option('--json', 'print JSON')
    .action(function (this: Command, item: string, quantity: string, o: { reason: string }) {
      return ctx.run(this, async (c, json) => {
        const body = { quantity: whole(quantity, 'quantity', { min: 1 }), reason: o.reason };
        const data = expectOk(await c.request('POST', `/catalog/items/${enc(item)}/receipts`, body));
        ctx.print(json, data, [data.item]);
      });
    });
  stock
    .command('correct <item>')
    .description('a count, damage or loss: change the quantities by deltas, with a reason')
    .option('--logical <delta>', 'change of the logical (available) quantity, e.g. -2')
    .option('--physical <delta>', 'change of the physical quantity, e.g. -2')
    .requiredOption('--reason <text>', 'why; kept in the stock ledger')
    .option('--json', 'print JSON')
    .action(function (this: Command, item: string, o: { logical?: string; physical?: string; reason: string }) {
      return ctx.run(this, async (c, json) => {
        const body = {
          ...(o.logical !== undefined ? { logicalDelta: whole(o.logical, '--logical', { signed: true }) } : {}),
          ...(o.physical !== undefined ? { physicalDelta: whole(o.physical, '--physical', { signed: true }) } : {}),
          reason: o.reason,
        };
        const data = expectOk(await c.request('POST', `/catalog/items/${enc(item)}/corrections`, body));
        ctx.print(json, data, [data.item]);
      });
    });
  stock
    .command('ledger <item>')
    .description('the stock movements of an item, newest first')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print JSON')
    .action(function (this: Command, item: string, o: { limit: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(
          await c.request(
            'GET',
            `/catalog/items/${enc(item)}/movements?limit=${whole(o.limit, '--limit', { min: 1 })}`,
          ),
        );
        ctx.print(json, data, data.movements, [
          'created',
          'kind',
          'logicalDelta',
          'physicalDelta',
          'logicalAfter',
          'physicalAfter',
          'orderReference',
          'reason',
        ]);
      });
    });
}

/** An account's money: ledger and payments. */
function registerLedgerCommands(program: Command, ctx: CliContext): void {
  const ledger = program.command('ledger').description("an account's money: ledger and payments");
  ledger
    .command('show <account>')
    .description('the ledger of an account, newest first, and its balance')
    .option('--json', 'print JSON')
    .action(function (this: Command, account: string) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', `/accounts/${enc(account)}/ledger?limit=100`));
        if (!json) ctx.out(`balance ${data.balance} cents\n`);
        ctx.print(json, data, data.entries, [
          'created',
          'kind',
          'amount',
          'description',
          'orderReference',
          'simulated',
        ]);
      });
    });
  ledger
    .command('payment <account> <amountCents>')
    .description('money received (a prepaid top-up, an invoice paid)')
    .requiredOption('--note <text>', 'bank reference or why')
    .option('--invoice <ref>', 'the invoice it pays first; the rest goes to the other open invoices, oldest due first')
    .option('--json', 'print JSON')
    .action(function (this: Command, account: string, amount: string, o: { note: string; invoice?: string }) {
      return ctx.run(this, async (c, json) => {
        const body = {
          amount: whole(amount, 'amountCents', { min: 1 }),
          note: o.note,
          ...(o.invoice ? { invoiceReference: o.invoice } : {}),
        };
        const data = expectOk(await c.request('POST', `/accounts/${enc(account)}/payments`, body));
        ctx.print(json, data, [
          {
            ...data.account,
            paid: data.payment.allocations.map((a: { number: string }) => a.number).join(' '),
            unallocated: data.payment.unallocated,
          },
        ]);
      });
    });
}

/** Monthly invoices and credit notes. */
function registerInvoicesCommands(program: Command, ctx: CliContext): void {
  const invoices = program.command('invoices').description('monthly invoices and credit notes');
  invoices
    .command('issue')
    .description("issue every account's invoice of a month (default: last month); safe to repeat")
    .option('--month <yyyy-mm>')
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { month?: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('POST', '/invoices/issue', o.month ? { month: o.month } : {}));
        ctx.print(json, data, data.invoices, ['number', 'accountReference', 'net', 'vat', 'total', 'due']);
      });
    });
  invoices
    .command('list <account>')
    .option('--json', 'print JSON')
    .action(function (this: Command, account: string) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', `/accounts/${enc(account)}/invoices?limit=100`));
        const rows = data.invoices.map((i: { payment: { status: string; outstanding: number } | null }) => ({
          ...i,
          payment: i.payment?.status ?? '',
          outstanding: i.payment?.outstanding ?? '',
        }));
        ctx.print(json, data, rows, [
          'reference',
          'number',
          'kind',
          'periodStart',
          'total',
          'due',
          'payment',
          'outstanding',
        ]);
      });
    });
  invoices
    .command('credit-note <invoice>')
    .description('correct an issued invoice with a credit note (default: all not yet credited)')
    .requiredOption('--reason <text>')
    .option('--net <cents>', 'net amount to credit')
    .option('--json', 'print JSON')
    .action(function (this: Command, invoice: string, o: { reason: string; net?: string }) {
      return ctx.run(this, async (c, json) => {
        const body = { reason: o.reason, ...(o.net ? { net: whole(o.net, '--net', { min: 1 }) } : {}) };
        const data = expectOk(await c.request('POST', `/invoices/${enc(invoice)}/credit-notes`, body));
        ctx.print(json, data, [data.invoice], ['reference', 'number', 'net', 'vat', 'total']);
      });
    });
}

/** Partner apps acting for many organizations. */
function registerIntegratorsCommands(program: Command, ctx: CliContext): void {
  const integrators = program.command('integrators').description('partner apps acting for many organizations');
  integrators
    .command('list')
    .option('--json', 'print JSON')
    .action(function (this: Command) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', '/integrators?limit=100'));
        ctx.print(json, data, data.integrators, ['reference', 'code', 'name', 'created']);
      });
    });
  integrators
    .command('create')
    .requiredOption('--code <code>', 'goes on the orders of its keys (via_store_code)')
    .requiredOption('--name <name>')
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { code: string; name: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('POST', '/integrators', { code: o.code, name: o.name }));
        ctx.print(json, data, [data.integrator]);
      });
    });
}
