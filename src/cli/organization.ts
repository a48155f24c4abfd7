import type { Command } from 'commander';
import { resolveOrganization, resolveStore } from './resolve.ts';
import { expectOk } from './output.ts';
import { type CliContext, parseJsonOption, parseQuota } from './context.ts';

/** Organizations, accounts, stores, brands, API keys and limits. */
export function registerOrganizationCommands(program: Command, ctx: CliContext): void {
  registerOrgsCommands(program, ctx);
  registerAccountsCommands(program, ctx);
  registerBrandsCommands(program, ctx);
  registerStoresCommands(program, ctx);
  registerKeysCommands(program, ctx);
}

/** Organizations: list, create, show, and their limits. */
function registerOrgsCommands(program: Command, ctx: CliContext): void {
  const orgs = program.command('orgs').description('organizations');
  orgs
    .command('list')
    .description('list organizations')
    .option('--json', 'print JSON')
    .action(function (this: Command) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('GET', '/organizations?limit=100'));
        ctx.print(json, data, data.organizations, ['reference', 'name', 'created']);
      });
    });
  orgs
    .command('create')
    .description('create an organization')
    .requiredOption('--name <name>')
    .option('--rendertoken-limit <n>', 'weekly rendertokens', Number)
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { name: string; rendertokenLimit?: number }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(
          await c.request('POST', '/organizations', { name: o.name, rendertokenLimit: o.rendertokenLimit }),
        );
        ctx.print(json, data, [data.organization]);
      });
    });
  orgs
    .command('show <organization>')
    .description('one organization with its limits')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}`));
        ctx.print(json, data, [data.organization]);
      });
    });
  orgs
    .command('set-rate-limits <organization>')
    .description('override rate-limit quotas (quota/seconds); --reset returns to the defaults')
    .option('--default <q/w>')
    .option('--uploads <q/w>')
    .option('--downloads <q/w>')
    .option('--reset')
    .option('--json', 'print JSON')
    .action(function (
      this: Command,
      org: string,
      o: { default?: string; uploads?: string; downloads?: string; reset?: boolean },
    ) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const body: Record<string, unknown> = {};
        for (const k of ['default', 'uploads', 'downloads'] as const) if (o[k]) body[k] = parseQuota(o[k]!);
        const data = expectOk(await c.request('PUT', `/organizations/${org}/rate-limits`, o.reset ? null : body));
        ctx.print(json, data, [{ organization: org, ...(data.rateLimits ?? { rateLimits: 'defaults' }) }]);
      });
    });
  orgs
    .command('set-rendertoken-limit <organization> <limit>')
    .description('weekly rendertoken limit')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, limit: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(
          await c.request('PUT', `/organizations/${org}/rendertoken-limit`, { limit: Number(limit) }),
        );
        ctx.print(json, data, [data]);
      });
    });
}

/** Accounts (billing entities) of an organization. */
function registerAccountsCommands(program: Command, ctx: CliContext): void {
  const accounts = program.command('accounts').description('accounts (billing entities)');
  accounts
    .command('list <organization>')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}/accounts?limit=100`));
        ctx.print(json, data, data.accounts, ['reference', 'name', 'balance', 'prepaid', 'paymentTermDays']);
      });
    });
  accounts
    .command('create <organization>')
    .description('create an account')
    .requiredOption('--name <name>')
    .requiredOption('--legal-name <name>')
    .option('--vat <number>')
    .requiredOption('--billing-address <json>', 'address fields as JSON')
    .option('--payment-term-days <n>', 'days', Number)
    .option('--prepaid', 'pays before production (else invoiced monthly, due in the payment term)')
    .option('--json', 'print JSON')
    .action(function (
      this: Command,
      org: string,
      o: {
        name: string;
        legalName: string;
        vat?: string;
        billingAddress: string;
        paymentTermDays?: number;
        prepaid?: boolean;
      },
    ) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const body = {
          name: o.name,
          legalEntity: { name: o.legalName, vatNumber: o.vat },
          billingAddress: parseJsonOption(o.billingAddress, '--billing-address'),
          paymentTermDays: o.paymentTermDays,
          ...(o.prepaid ? { prepaid: true } : {}),
        };
        const data = expectOk(await c.request('POST', `/organizations/${org}/accounts`, body));
        ctx.print(json, data, [data.account], ['reference', 'name']);
      });
    });
}

/** Brands of an organization. */
function registerBrandsCommands(program: Command, ctx: CliContext): void {
  const brands = program.command('brands').description('brands');
  brands
    .command('list <organization>')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}/brands?limit=100`));
        ctx.print(json, data, data.brands, ['reference', 'name', 'primaryColor', 'secondaryColor']);
      });
    });
  brands
    .command('create <organization>')
    .description('create a brand')
    .requiredOption('--name <name>')
    .option('--logo-url <url>')
    .option('--primary-color <#rrggbb>')
    .option('--secondary-color <#rrggbb>')
    .option('--cs-email <email>')
    .option('--cs-phone <phone>')
    .option('--cs-url <url>')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, o: Record<string, string | undefined>) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const customerService =
          o.csEmail || o.csPhone || o.csUrl ? { email: o.csEmail, phonenumber: o.csPhone, url: o.csUrl } : undefined;
        const data = expectOk(
          await c.request('POST', `/organizations/${org}/brands`, {
            name: o.name,
            logoUrl: o.logoUrl,
            primaryColor: o.primaryColor,
            secondaryColor: o.secondaryColor,
            customerService,
          }),
        );
        ctx.print(json, data, [data.brand], ['reference', 'name']);
      });
    });
}

/** Stores of an organization and their callback URLs. */
function registerStoresCommands(program: Command, ctx: CliContext): void {
  const stores = program.command('stores').description('stores');
  stores
    .command('list <organization>')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}/stores?limit=100`));
        ctx.print(json, data, data.stores, ['reference', 'code', 'name', 'integration', 'callbackUrl']);
      });
    });
  stores
    .command('create <organization>')
    .description('create a store')
    .requiredOption('--name <name>')
    .requiredOption('--code <code>', 'legacy store code')
    .requiredOption('--integration <type>', 'api, shopify, ...')
    .requiredOption('--account <reference>')
    .option('--brand <reference>', 'default brand')
    .option('--combined-address <json>')
    .option('--callback-url <url>')
    .option('--json', 'print JSON')
    .action(function (
      this: Command,
      org: string,
      o: {
        name: string;
        code: string;
        integration: string;
        account: string;
        brand?: string;
        combinedAddress?: string;
        callbackUrl?: string;
      },
    ) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const body = {
          name: o.name,
          code: o.code,
          integration: o.integration,
          accountReference: o.account,
          defaultBrandReference: o.brand,
          combinedAddress: o.combinedAddress ? parseJsonOption(o.combinedAddress, '--combined-address') : undefined,
          callbackUrl: o.callbackUrl,
        };
        const data = expectOk(await c.request('POST', `/organizations/${org}/stores`, body));
        ctx.print(json, data, [data.store], ['reference', 'code', 'name', 'integration']);
      });
    });
  stores
    .command('set-callback <organization> <store> <url>')
    .description('set the order-updated callback URL ("" disables it)')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, store: string, url: string) {
      return ctx.run(this, async (c, json) => {
        ({ organization: org, store } = await resolveStore(c, org, store));
        const data = expectOk(
          await c.request('PATCH', `/organizations/${org}/stores/${store}`, { callbackUrl: url || null }),
        );
        ctx.print(json, data, [data.store], ['reference', 'code', 'callbackUrl']);
      });
    });
}

/** API keys of an organization. */
function registerKeysCommands(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description('API keys');
  keys
    .command('list <organization>')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('GET', `/organizations/${org}/api-keys?limit=100`));
        ctx.print(json, data, data.apiKeys, [
          'reference',
          'name',
          'hint',
          'readOnly',
          'created',
          'lastUsed',
          'revoked',
        ]);
      });
    });
  keys
    .command('create <organization>')
    .description('create an API key; the secret is printed once')
    .requiredOption('--name <name>')
    .option('--read-only', 'read-only key')
    .option('--integrator <code>', 'issue the key through an integrator: its orders carry the code')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, o: { name: string; readOnly?: boolean; integrator?: string }) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(
          await c.request('POST', `/organizations/${org}/api-keys`, {
            name: o.name,
            readOnly: Boolean(o.readOnly),
            ...(o.integrator ? { integrator: o.integrator } : {}),
          }),
        );
        ctx.print(json, data, [data.apiKey], ['reference', 'name', 'readOnly', 'secret']);
      });
    });
  keys
    .command('revoke <organization> <key>')
    .description('revoke a key at once')
    .option('--json', 'print JSON')
    .action(function (this: Command, org: string, key: string) {
      return ctx.run(this, async (c, json) => {
        org = await resolveOrganization(c, org);
        const data = expectOk(await c.request('POST', `/organizations/${org}/api-keys/${key}/revoke`));
        ctx.print(json, data, [data.apiKey], ['reference', 'name', 'revoked']);
      });
    });
}
