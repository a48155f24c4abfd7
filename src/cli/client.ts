import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { DataDirBusy, type DataDirLock, dataDirHeld, lockDataDir, lockFile } from '../platform/data-dir-lock.ts';
import { loadOrCreateSecret, readSecretFile } from '../platform/secrets.ts';
import { startRuntime } from '../runtime.ts';
import type { Services } from '../services.ts';

export interface OperatorResponse {
  status: number;
  data: any;
}

/** How the CLI reaches the operator API: over HTTP to a running server, or in-process. */
export interface OperatorClient {
  readonly mode: 'http' | 'direct';
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<OperatorResponse>;
  /** A GET of a file (print files, labels): its bytes, or the API's error as `data`. */
  download(path: string): Promise<OperatorResponse & { bytes: Buffer }>;
  close(): Promise<void>;
}

export class CliError extends Error {}

/**
 * An HTTP answer's body as JSON. What stands in front of the server (a proxy's HTML error page, a
 * load balancer) can answer with something else; that is an operator-facing failure, not a crash.
 */
function jsonBody(res: Response, text: string): any {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    const type = res.headers.get('content-type')?.split(';')[0].trim() || 'no content type';
    const what = /json/i.test(type) ? `${type} that does not parse` : `${type}, not JSON`;
    throw new CliError(`the server answered ${res.status} with ${what}`);
  }
}

/**
 * The server that holds the embedded database and listens, if one runs; a CliError when another
 * process holds it that the CLI cannot go through (podctl itself, or a server still starting).
 */
export function runningServer(config: Pick<Config, 'dataDir'>): { pid: number; url: string } | null {
  const held = dataDirHeld(config.dataDir);
  if (!held) return null;
  const { holder } = held;
  if (holder?.role === 'server' && holder.url) return { pid: holder.pid, url: holder.url };
  throw busy(new DataDirBusy(config.dataDir, holder));
}

const busy = (err: DataDirBusy) =>
  new CliError(
    `${err.message}; the embedded database has one process at a time: ${
      err.holder?.role === 'server' ? 'try again once it listens, or pass --url' : 'try again when it is done'
    }`,
  );

/** The data directory for this CLI process while it works on the database itself. */
export function lockForCli(config: Pick<Config, 'dataDir' | 'databaseUrl'>): DataDirLock | null {
  if (config.databaseUrl) return null;
  try {
    return lockDataDir(config.dataDir, 'podctl');
  } catch (err) {
    throw err instanceof DataDirBusy ? busy(err) : err;
  }
}

class HttpClient implements OperatorClient {
  readonly mode = 'http' as const;
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<OperatorResponse> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/operator${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined ? { 'content-type': contentType } : {}),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    } catch (err) {
      throw new CliError(`cannot reach the server at ${this.baseUrl}: ${(err as Error).message}`);
    }
    return { status: res.status, data: jsonBody(res, await res.text()) };
  }

  async download(path: string): Promise<OperatorResponse & { bytes: Buffer }> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/operator${path}`, { headers: { authorization: `Bearer ${this.token}` } });
    } catch (err) {
      throw new CliError(`cannot reach the server at ${this.baseUrl}: ${(err as Error).message}`);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes, data: res.ok ? null : jsonBody(res, bytes.toString('utf8')) };
  }

  async close(): Promise<void> {}
}

class DirectClient implements OperatorClient {
  readonly mode = 'direct' as const;
  constructor(
    private readonly app: FastifyInstance,
    private readonly s: Services,
    private readonly token: string,
    private readonly lock: DataDirLock | null,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<OperatorResponse> {
    const res = await this.app.inject({
      method: method as 'GET',
      url: `/operator${path}`,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { 'content-type': contentType } : {}),
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.statusCode, data: res.body ? JSON.parse(res.body) : null };
  }

  async download(path: string): Promise<OperatorResponse & { bytes: Buffer }> {
    const res = await this.app.inject({
      method: 'GET',
      url: `/operator${path}`,
      headers: { authorization: `Bearer ${this.token}` },
    });
    const ok = res.statusCode < 400;
    return { status: res.statusCode, bytes: res.rawPayload, data: ok ? null : JSON.parse(res.body || 'null') };
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.s.rateLimits.close();
    await this.s.db.close();
    this.lock?.release();
  }
}

/**
 * PGlite allows one process, so while a server runs on the embedded database every command goes
 * through its operator API. With no server (or with PostgreSQL and no --url) the CLI opens the
 * database itself and runs the very same operator routes in-process.
 */
/**
 * With no server and no DATABASE_URL the CLI would open DATA_DIR's embedded database, and PGlite
 * creates one where there is none: an operator who started it in the wrong folder would quietly get
 * an empty system. It stops and says where it looked instead, unless told `--init`.
 */
export function requireDatabase(config: Pick<Config, 'dataDir' | 'databaseUrl'>, init: boolean): void {
  if (config.databaseUrl || init) return;
  const pglite = join(config.dataDir, 'pglite');
  if (existsSync(join(pglite, 'PG_VERSION'))) return;
  throw new CliError(
    [
      'no server and no database found. Looked for:',
      `  a running server: ${lockFile(config.dataDir)} (held by \`npm start\`) - none`,
      `  an embedded database: ${pglite} - none`,
      '  DATABASE_URL - not set',
      'Run it where the server keeps its data (or set DATA_DIR), point --url at a running server,',
      'set DATABASE_URL, or pass --init to create a new embedded database here.',
    ].join('\n'),
  );
}

export async function connect(
  config: Readonly<Config>,
  opts: { url?: string; token?: string; init?: boolean },
  build: typeof buildApp = buildApp,
): Promise<OperatorClient> {
  const server = opts.url ? { url: opts.url } : runningServer(config);
  if (server) {
    const token = opts.token ?? config.operatorToken ?? readSecretFile(config.dataDir, 'operator-token');
    if (!token)
      throw new CliError(
        `no operator token: set OPERATOR_TOKEN or pass --token (the server keeps it in ${join(config.dataDir, 'operator-token')})`,
      );
    return new HttpClient(server.url.replace(/\/$/, ''), token);
  }
  requireDatabase(config, opts.init === true);
  const lock = lockForCli(config);
  try {
    const s = await startRuntime(config, { log: pino({ level: 'silent' }) as never });
    try {
      const token = loadOrCreateSecret(config.dataDir, 'operator-token', config.operatorToken);
      const app = await build(s, { operatorToken: token });
      await app.ready();
      return new DirectClient(app, s, token, lock);
    } catch (err) {
      // The embedded database holds the data directory until closed: a failed start closes it.
      await s.rateLimits.close();
      await s.db.close();
      throw err;
    }
  } catch (err) {
    lock?.release();
    throw err;
  }
}
