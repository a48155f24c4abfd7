#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { Client } from '../client.ts';
import { ApiError, AuthenticationError, ConnectionError } from '../errors.ts';
import { VERSION } from '../version.ts';
import { COMMANDS, type Command } from './commands.ts';
import { listen } from './listen.ts';
import { CliFailure } from './output.ts';

const GLOBAL = {
  'api-key': { type: 'string', description: 'secret key (default: $POD_API_KEY)' },
  'base-url': { type: 'string', description: 'API address (default: $POD_BASE_URL or http://127.0.0.1:3000)' },
  json: { type: 'boolean', description: 'print JSON instead of a table' },
  help: { type: 'boolean', description: 'show help' },
} as const;

const LISTEN: Command = {
  name: 'listen',
  summary: "forward your organization's events to a local URL, signed like real webhook deliveries",
  options: {
    'forward-to': { type: 'string', description: 'where to POST each event, e.g. http://localhost:8080/webhooks' },
    events: { type: 'string', description: 'comma-separated types to forward (default: all)' },
    secret: { type: 'string', description: 'whsec_… to sign with (default: a local secret kept for you)' },
  },
  example: 'podpartner listen --forward-to http://localhost:8080/webhooks --events order.shipped,shipment.delivered',
  async run(client, _p, values) {
    if (typeof values['forward-to'] !== 'string') throw new CliFailure('listen needs --forward-to <url>');
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    await listen(client, {
      forwardTo: values['forward-to'],
      events: typeof values.events === 'string' ? values.events.split(',').map((t) => t.trim()) : undefined,
      secret: typeof values.secret === 'string' ? values.secret : undefined,
      signal: stop.signal,
    });
  },
};

/** Every command, `listen` first. */
export const ALL = [LISTEN, ...COMMANDS];

function usage(): string {
  const width = Math.max(...ALL.map((c) => `${c.name} ${c.args ?? ''}`.length));
  return [
    `podpartner ${VERSION}: the Partner API from your terminal`,
    '',
    'Usage: podpartner <command> [options]',
    '',
    'Commands:',
    ...ALL.map((c) => `  ${`${c.name} ${c.args ?? ''}`.padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    ...Object.entries(GLOBAL).map(([k, o]) => `  --${k.padEnd(10)}  ${o.description}`),
    '',
    'Example:',
    '  export POD_API_KEY=sk_test_…',
    '  podpartner listen --forward-to http://localhost:8080/webhooks',
    '',
    '`podpartner <command> --help` shows a command with an example.',
  ].join('\n');
}

export function commandHelp(c: Command): string {
  const options = { ...(c.options ?? {}), ...GLOBAL };
  return [
    `podpartner ${c.name}${c.args ? ` ${c.args}` : ''}: ${c.summary}`,
    '',
    ...(c.details ? [...c.details, ''] : []),
    'Options:',
    ...Object.entries(options).map(([k, o]) => `  --${k.padEnd(12)}  ${o.description}`),
    '',
    'Example:',
    `  ${c.example}`,
  ].join('\n');
}

/** The command whose words start the arguments (longest name first: `orders list` before `orders`). */
function find(words: string[]): { command: Command; rest: string[] } | null {
  for (const command of [...ALL].sort((a, b) => b.name.length - a.name.length)) {
    const parts = command.name.split(' ');
    if (parts.every((p, i) => words[i] === p)) return { command, rest: words.slice(parts.length) };
  }
  return null;
}

/** One line a person can act on, for every way a command can fail. */
function describe(err: unknown, baseUrl: string): string {
  if (err instanceof CliFailure) return err.message;
  if (err instanceof AuthenticationError) return `the API refused the key: ${err.message} (401 ${err.code})`;
  if (err instanceof ApiError && err.status === 404 && /test-helpers/.test(err.message))
    return 'this server has no test helpers: `trigger` works in the test environment only';
  if (err instanceof ApiError)
    return `${err.message} (${err.status} ${err.code}${err.requestId ? `, request ${err.requestId}` : ''})`;
  if (err instanceof ConnectionError) {
    const why = (err.cause as { cause?: { code?: string } } | undefined)?.cause?.code;
    return `cannot reach the API at ${baseUrl}${why ? ` (${why})` : ''}: is the server running? (--base-url or POD_BASE_URL)`;
  }
  return err instanceof Error ? err.message : String(err);
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  // Option values (`--api-key sk_…`) are not command words: a loose parse tells them apart.
  const allOptions = Object.assign({}, GLOBAL, ...ALL.map((c) => c.options ?? {}));
  const words = parseArgs({ args: argv, options: allOptions, allowPositionals: true, strict: false }).positionals;
  const found = find(words);
  if (!found) {
    if (argv.includes('--version')) process.stdout.write(`${VERSION}\n`);
    else if (words.length === 0 || argv.includes('--help')) process.stdout.write(`${usage()}\n`);
    else {
      process.stderr.write(`error: unknown command "${words.join(' ')}"\n\n${usage()}\n`);
      return 2;
    }
    return 0;
  }
  const { command } = found;
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...(command.options ?? {}), ...GLOBAL } as never,
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as typeof values;
    positionals = parsed.positionals.slice(command.name.split(' ').length);
  } catch (err) {
    const first = (err as Error).message.split('. ')[0].replace(/\.$/, '');
    process.stderr.write(`error: ${first}\n\n${commandHelp(command)}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  const apiKey = (values['api-key'] as string | undefined) ?? env.POD_API_KEY;
  const baseUrl = (values['base-url'] as string | undefined) ?? env.POD_BASE_URL ?? 'http://127.0.0.1:3000';
  try {
    if (!apiKey) throw new CliFailure('no API key: pass --api-key or set POD_API_KEY');
    const client = new Client({ apiKey, baseUrl, maxRetries: 1, userAgent: `podpartner/${VERSION}` });
    await command.run(client, positionals, values);
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${describe(err, baseUrl)}\n`);
    return err instanceof CliFailure ? err.exitCode : 1;
  }
}

// Run as the `podpartner` bin (not when a test imports `main`).
if (process.argv[1] && /podpartner$|cli[\\/]main\.(js|ts)$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
