import type { Command } from 'commander';
import { openDb } from '../platform/db/index.ts';
import { migrate } from '../platform/db/migrate.ts';
import { CliError, lockForCli, requireDatabase, runningServer } from './client.ts';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';

/** The system's own commands: migrations, demo data, background jobs and the request log. */
export function registerSystemCommands(program: Command, ctx: CliContext): void {
  registerDatabaseCommands(program, ctx);
  registerJobsCommands(program, ctx);
  registerRequestLogCommand(program, ctx);
}

function registerDatabaseCommands(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('apply pending database migrations (not while a server holds the embedded database)')
    .option('--json', 'print JSON')
    .action(async function (this: Command) {
      const config = ctx.config();
      if (!config.databaseUrl && runningServer(config))
        throw new CliError('a server is running on the embedded database; it migrated at start');
      requireDatabase(config, program.opts<{ init?: boolean }>().init === true);
      const lock = lockForCli(config);
      const db = await openDb(config).catch((err) => {
        lock?.release();
        throw err;
      });
      try {
        const applied = await migrate(db);
        ctx.print(
          Boolean(this.optsWithGlobals().json),
          { applied },
          applied.map((name) => ({ applied: name })),
        );
      } finally {
        await db.close();
        lock?.release();
      }
    });

  program
    .command('seed')
    .description('load the demo data once (test environment); its keys are issued once and kept across restarts')
    .option('--rotate-keys', 'revoke the demo API keys and issue new ones')
    .option('--json', 'print one JSON document')
    .action(function (this: Command, o: { rotateKeys?: boolean }) {
      return ctx.run(this, async (c, json) => {
        const data = expectOk(await c.request('POST', `/seed${o.rotateKeys ? '?rotateKeys=true' : ''}`));
        const orgs: any[] = data.result?.organizations ?? [];
        if (!json && !data.keysIssued)
          ctx.out(
            `Demo data is loaded; its keys were issued earlier${orgs.length ? ` (${data.file})` : ''}. --rotate-keys issues new ones.\n`,
          );
        ctx.print(
          json,
          data,
          orgs.map((o) => ({
            organization: o.reference,
            name: o.name,
            fullKey: o.apiKeys.full,
            readOnlyKey: o.apiKeys.readOnly,
          })),
        );
      });
    });
}

function registerJobsCommands(program: Command, ctx: CliContext): void {
  const jobs = program.command('jobs').description('background jobs');
  jobs
    .command('list')
    .description('recent jobs with counts per status')
    .option('--status <status>', 'pending, running, succeeded or dead')
    .option('--kind <kind>')
    .option('--limit <n>', 'rows', '50')
    .option('--json', 'print JSON')
    .action(function (this: Command, o: { status?: string; kind?: string; limit: string }) {
      return ctx.run(this, async (c, json) => {
        const q = new URLSearchParams({
          limit: o.limit,
          ...(o.status ? { status: o.status } : {}),
          ...(o.kind ? { kind: o.kind } : {}),
        });
        const data = expectOk(await c.request('GET', `/jobs?${q}`));
        if (!json) ctx.out(`counts: ${JSON.stringify(data.counts)}\n`);
        ctx.print(json, data, data.jobs, ['id', 'kind', 'status', 'attempts', 'runAt', 'lastError']);
      });
    });
  jobs
    .command('retry <id>')
    .description('run a dead job again')
    .option('--json', 'print JSON')
    .action(function (this: Command, id: string) {
      return ctx.run(this, async (c, json) => {
        ctx.print(json, expectOk(await c.request('POST', `/jobs/${id}/retry`)));
      });
    });
}

function registerRequestLogCommand(program: Command, ctx: CliContext): void {
  program
    .command('request-log [state]')
    .description("a running server's request log: whether it records, rows waiting and dropped; `pause` or `resume` it")
    .option('--json', 'print JSON')
    .action(function (this: Command, state?: string) {
      return ctx.run(this, async (c, json) => {
        if (state !== undefined && state !== 'pause' && state !== 'resume')
          throw new CliError(`unknown state "${state}": pause or resume`);
        // In-process, the CLI would pause a log of its own that records nothing.
        if (c.mode === 'direct')
          throw new CliError("no running server: the request log is a server's (start it, or pass --url)");
        const res = state
          ? await c.request('PUT', '/request-log', { recording: state === 'resume' })
          : await c.request('GET', '/request-log');
        ctx.print(json, expectOk(res));
      });
    });
}
