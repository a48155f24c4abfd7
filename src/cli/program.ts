import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { ConfigError } from '../config.ts';
import { registerBankCommands } from './bank.ts';
import { registerBusinessCommands } from './business.ts';
import { registerCatalogCommands } from './catalog.ts';
import { registerClaimCommands } from './claims.ts';
import { CliError } from './client.ts';
import { type CliIo, createContext } from './context.ts';
import { addExamples } from './examples.ts';
import { registerFulfilmentCommands } from './fulfilment.ts';
import { registerOrganizationCommands } from './organization.ts';
import { registerProductionCommands } from './production.ts';
import { registerSystemCommands } from './system.ts';
import { registerUserCommands } from './users.ts';

export type { CliIo } from './context.ts';

/**
 * Runs one podctl command line (`argv` without node and script) against `io` and gives its exit
 * code: the binary passes its process's environment and streams, tests their own. It never ends
 * the process and leaves the process's umask alone (the binary sets that).
 */
export async function runPodctl(argv: string[], io: CliIo): Promise<number> {
  const program = new Command('podctl')
    .description(
      'Operator tool of the partner API. Talks to the running server (embedded database) or opens the database itself.',
    )
    .option('--url <url>', 'operator API of a running server, e.g. http://127.0.0.1:3000')
    .option('--token <token>', 'operator token (default: OPERATOR_TOKEN or DATA_DIR/operator-token)')
    .option('--init', 'create a new embedded database in DATA_DIR when there is none (first use)')
    .showHelpAfterError()
    // Set before the commands are added, which inherit them: help and usage errors go to `io` and
    // come back as a CommanderError with their exit code instead of ending the process.
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const ctx = createContext(program, io);
  registerSystemCommands(program, ctx);
  registerOrganizationCommands(program, ctx);
  registerCatalogCommands(program, ctx);
  registerBusinessCommands(program, ctx);
  registerBankCommands(program, ctx);
  registerFulfilmentCommands(program, ctx);
  registerProductionCommands(program, ctx);
  registerClaimCommands(program, ctx);
  registerUserCommands(program, ctx);
  addExamples(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError || err instanceof ConfigError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    // On stderr: stdout carries the command's answer, which `--json` callers parse.
    pino({}, { write: io.stderr }).error(err);
    return 1;
  }
}
