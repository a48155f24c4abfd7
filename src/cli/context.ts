import type { Command } from 'commander';
import { type Config, ConfigError, loadConfig, readDotEnv } from '../config.ts';
import type { Env } from '../config/types.ts';
import { CliError, connect, type OperatorClient } from './client.ts';
import { printed } from './output.ts';

/** What a podctl run reads and writes besides its arguments: the binary passes its process's own. */
export interface CliIo {
  /** The variables the configuration is read from (`./.env` fills those missing). */
  env: Env;
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CliContext {
  config(): Readonly<Config>;
  /** 1 once a command failed with a message of its own (`run`), else 0. */
  readonly exitCode: number;
  /** Runs an action with an operator client; prints errors as one line and sets the exit code. */
  run(cmd: Command, action: (client: OperatorClient, json: boolean) => Promise<void>): Promise<void>;
  /** A command's action that is `run` with the command's arguments (positionals, then its options). */
  action<A extends any[]>(
    fn: (client: OperatorClient, json: boolean, ...args: A) => Promise<void>,
  ): (this: Command, ...args: A) => Promise<void>;
  /** Writes a document or rows to stdout (see `printed`). */
  print(json: boolean, data: unknown, rows?: Array<Record<string, unknown>>, columns?: string[]): void;
  out(text: string): void;
  err(text: string): void;
}

export function createContext(program: Command, io: CliIo): CliContext {
  let config: Readonly<Config> | null = null;
  let exitCode = 0;
  const ctx: CliContext = {
    config() {
      config ??= loadConfig({ ...readDotEnv(), ...io.env });
      return config;
    },
    get exitCode() {
      return exitCode;
    },
    async run(cmd, action) {
      const opts = program.opts<{ url?: string; token?: string; init?: boolean }>();
      const json = Boolean(cmd.optsWithGlobals<{ json?: boolean }>().json);
      let client: OperatorClient | null = null;
      try {
        client = await connect(ctx.config(), opts);
        await action(client, json);
      } catch (err) {
        if (err instanceof CliError || err instanceof ConfigError) {
          io.stderr(`error: ${err.message}\n`);
          exitCode = 1;
        } else {
          throw err;
        }
      } finally {
        await client?.close();
      }
    },
    action(fn) {
      return function (this: Command, ...args) {
        return ctx.run(this, (client, json) => fn(client, json, ...args));
      };
    },
    print: (json, data, rows, columns) => io.stdout(printed(json, data, rows, columns)),
    out: (text) => io.stdout(text),
    err: (text) => io.stderr(text),
  };
  return ctx;
}

/** `default=3000/60` style option value → `{quota, windowSeconds}`. */
export function parseQuota(value: string): { quota: number; windowSeconds: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new CliError(`"${value}" is not <quota>/<seconds>, e.g. 3000/60`);
  return { quota: Number(m[1]), windowSeconds: Number(m[2]) };
}

export function parseJsonOption(value: string, name: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new CliError(
      `${name} must be JSON, e.g. '{"lastname":"Doe","streetname":"Main","zipcode":"1000","city":"X","countryCode":"NL"}'`,
    );
  }
}
