import type { Command } from 'commander';
import { CliError } from './client.ts';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';

const LINE = /^(\d+)(?:@(Order_[0-9a-z]{26}))?:(\d+),(\d+),(\d+)$/;

/** `1:2,0,0` or `1@Order_…:0,1,1` → one decided claimline (replacement, refund, rejection). */
function parseLine(spec: string, comment: string) {
  const m = LINE.exec(spec);
  if (!m)
    throw new CliError(
      `--line "${spec}" is not <orderlineIndex>[@<orderReference>]:<replacement>,<refund>,<rejection>, e.g. 1:2,0,0`,
    );
  return {
    orderlineIndex: Number(m[1]),
    ...(m[2] ? { orderReference: m[2] } : {}),
    replacementQuantity: Number(m[3]),
    refundQuantity: Number(m[4]),
    rejectionQuantity: Number(m[5]),
    comment,
  };
}

/** Support's claim work in production: decisions and the category list. */
export function registerClaimCommands(program: Command, ctx: CliContext): void {
  const claims = program.command('claims').description('claims: decisions and categories');
  claims
    .command('decide <claimReference>')
    .description(
      'decide a pending claim; resolved when anything is replaced or refunded, else rejected. Replacements create replacement orders',
    )
    .requiredOption(
      '--line <spec...>',
      'per claimed line: <orderlineIndex>[@<orderReference>]:<replacement>,<refund>,<rejection> (adding up to the claimed quantity)',
    )
    .option('--comment <text>', 'comment for the partner', '')
    .option('--refund-shipping-costs', 'also refund the shipping costs')
    .option('--json', 'print JSON')
    .action(function (
      this: Command,
      ref: string,
      o: { line: string[]; comment: string; refundShippingCosts?: boolean },
    ) {
      return ctx.run(this, async (c, json) => {
        const claimlines = o.line.map((l) => parseLine(l, o.comment));
        const awarded = claimlines.some((l) => l.replacementQuantity > 0 || l.refundQuantity > 0);
        const decision = {
          status: awarded ? 'resolved' : 'rejected',
          refundShippingCosts: Boolean(o.refundShippingCosts),
          comment: o.comment,
          claimlines,
        };
        expectOk(await c.request('POST', `/claims/${encodeURIComponent(ref)}/decide`, { decision }));
        ctx.print(json, { claimReference: ref, status: decision.status });
      });
    });

  const categories = claims.command('categories').description('claim categories (shared by every organization)');
  categories
    .command('list')
    .option('--json', 'print JSON')
    .action(function (this: Command) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', '/claimcategories'));
        ctx.print(json, data, data.claimcategories);
      });
    });
  categories
    .command('add <name>')
    .description('add an item-issue category')
    .option('--evidence-required', 'claims in this category need 1 to 3 evidence images')
    .option('--json', 'print JSON')
    .action(function (this: Command, name: string, o: { evidenceRequired?: boolean }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(
          await c.request('POST', '/claimcategories', { name, evidenceRequired: Boolean(o.evidenceRequired) }),
        );
        ctx.print(json, data, [data.claimcategory]);
      });
    });
}
