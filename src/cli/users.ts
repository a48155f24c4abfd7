import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { resolveOrganization } from './resolve.ts';
import { expectOk } from './output.ts';
import type { CliContext } from './context.ts';

/** Dashboard and console users through the operator API of the running server. */
export function registerUserCommands(program: Command, ctx: CliContext): void {
  const users = program.command('users').description('dashboard users of organizations, and console operators');
  users
    .command('list <organization>')
    .description('users of an organization')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}/users`));
        ctx.print(json, data, data.users, ['reference', 'email', 'status', 'created']);
      });
    });
  users
    .command('create <organization>')
    .description('a partner user; without --password an invitation link (7 days, one use) is printed instead')
    .requiredOption('--email <email>')
    .option('--password <password>', 'initial password, at least 10 characters')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, o: { email: string; password?: string }) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(
          await c.request('POST', `/organizations/${org}/users`, {
            email: o.email,
            ...(o.password !== undefined ? { password: o.password } : {}),
          }),
        );
        ctx.print(json, data, [{ ...data.user, ...(data.invitationUrl ? { invitationUrl: data.invitationUrl } : {}) }]);
      });
    });
  users
    .command('create-operator')
    .description(
      "a console user (role operator); without --password a strong one is generated and printed once: production's first operator is made this way",
    )
    .requiredOption('--email <email>')
    .option('--password <password>', 'at least 10 characters (default: generated)')
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { email: string; password?: string }) {
      return ctx.run(this, async (c, json) => {
        const password = o.password ?? randomBytes(18).toString('base64url');
        const data = expectOk(await c.request('POST', '/users', { email: o.email, password }));
        const shown = o.password === undefined ? { ...data, password } : data;
        ctx.print(json, shown, [{ ...data.user, ...(o.password === undefined ? { password } : {}) }]);
        if (!json && o.password === undefined)
          ctx.err('The password is shown only now: store it in your password manager.\n');
      });
    });
}
