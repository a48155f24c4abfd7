import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from './client.ts';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';

const enc = encodeURIComponent;
const COLUMNS = ['reference', 'status', 'bookingDate', 'amount', 'currency', 'debtorName', 'detail'];

/** Bank statements (camt.053) and the payments they bring (docs/operations-business.md). */
export function registerBankCommands(program: Command, ctx: CliContext): void {
  const bank = program.command('bank').description('bank statements: import camt.053, assign what was not matched');
  bank
    .command('import <file>')
    .description('import an ISO 20022 camt.053 statement; importing it again changes nothing')
    .option('--json', 'print JSON')
    .action(function (this: Command, file: string) {
      return ctx.run(this, async (c, json) => {
        let xml: string;
        try {
          xml = readFileSync(file, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
        }
        const data = expectOk(await c.request('POST', '/bank-statements', xml, 'application/xml'));
        if (json) return ctx.print(json, data);
        const { imported, matched, unmatched, repeated, skipped } = data;
        ctx.print(false, { imported, matched, unmatched, repeated, skipped });
        if (data.payments.length) ctx.print(false, data, data.payments, COLUMNS);
      });
    });
  bank
    .command('payments')
    .description('imported payments, newest first')
    .option('--status <status>', 'matched, unmatched, assigned or dismissed', 'unmatched')
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { status: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', `/bank-payments?limit=100&status=${enc(o.status)}`));
        ctx.print(json, data, data.payments, COLUMNS);
      });
    });
  bank
    .command('assign <payment> <invoiceOrAccount>')
    .description('put an unmatched payment on an invoice (Invoice_…) or an account (Account_…)')
    .option('--json', 'print JSON')
    .action(function (this: Command, payment: string, target: string) {
      return ctx.run(this, async (c, json) => {
        const body = target.startsWith('Invoice_') ? { invoiceReference: target } : { accountReference: target };
        const data = expectOk(await c.request('POST', `/bank-payments/${enc(payment)}/assign`, body));
        ctx.print(json, data, [data.payment], COLUMNS);
      });
    });
  bank
    .command('dismiss <payment>')
    .description("not a partner's payment (interest, a supplier's refund): kept, booked nowhere")
    .requiredOption('--note <text>', 'why')
    .option('--json', 'print JSON')
    .action(function (this: Command, payment: string, o: { note: string }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('POST', `/bank-payments/${enc(payment)}/dismiss`, { note: o.note }));
        ctx.print(json, data, [data.payment], COLUMNS);
      });
    });
}
