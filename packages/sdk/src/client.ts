import { Download } from './downloads.ts';
import { NotReadyError, RenderError } from './errors.ts';
import { type OperationId, type OperationSpec, type Operations, type Resources, operations } from './generated.ts';
import { type ClientOptions, type RequestOptions, Transport, sleep, toApiError } from './http.ts';
import { Paginator } from './pagination.ts';
import type { RateLimitState } from './ratelimit.ts';
import { type UploadSource, describeSource, prepareUpload } from './uploads.ts';

export interface DownloadOptions extends RequestOptions {
  /** On `202` wait `Retry-After` and ask again (default true); false throws `NotReadyError`. */
  wait?: boolean;
  /** Give up waiting for the file after this many milliseconds. Default 10 minutes. */
  maxWaitMs?: number;
}

type Op<K extends OperationId> = Operations[K];
type BodyArgs<K extends OperationId> = Op<K>['bodyKind'] extends 'json'
  ? [body: Op<K>['body']]
  : Op<K>['bodyKind'] extends 'binary'
    ? [source: UploadSource]
    : [];
type QueryArgs<K extends OperationId> = Op<K>['query'] extends undefined
  ? []
  : Op<K>['queryRequired'] extends true
    ? [query: Op<K>['query']]
    : [query?: Op<K>['query']];
type OptionsOf<K extends OperationId> = Op<K>['result'] extends 'binary' ? DownloadOptions : RequestOptions;

/** Positional path parameters, then the body (or upload source), then the query, then options. */
export type ArgsOf<K extends OperationId> = [
  ...Op<K>['params'],
  ...BodyArgs<K>,
  ...QueryArgs<K>,
  options?: OptionsOf<K>,
];

export type ResultOf<K extends OperationId> = Op<K>['result'] extends 'page'
  ? Paginator<Op<K>['item'], Extract<Op<K>['response'], { nextCursor: string | null }>>
  : Promise<Op<K>['result'] extends 'binary' ? Download : Op<K>['result'] extends 'empty' ? void : Op<K>['response']>;

export type MethodOf<K extends OperationId> = (...args: ArgsOf<K>) => ResultOf<K>;

/** Reported after each upload of a bulk upload, failed or not. */
export interface UploadProgress<R> {
  done: number;
  total: number;
  failed: number;
  source: string;
  index: number;
  result?: R;
  error?: unknown;
}

export interface BulkUploadOptions<R> extends RequestOptions {
  /** Uploads in flight at once. Default 3. */
  concurrency?: number;
  onProgress?: (progress: UploadProgress<R>) => void;
  /** Stop at the first failure (default false: collect errors and go on). */
  stopOnError?: boolean;
}

export type BulkUploadResult<R> = Array<{ source: string; index: number; result?: R; error?: unknown }>;

type BinaryUploadOps = { [K in OperationId]: Op<K>['bodyKind'] extends 'binary' ? K : never }[OperationId];
type BulkUploadOf<K extends OperationId> = (
  sources: UploadSource[],
  options?: BulkUploadOptions<Op<K>['response']>,
) => Promise<BulkUploadResult<Op<K>['response']>>;

/** A resource with an `upload` operation also gets `uploadMany`. */
type UploadExtras<R extends keyof Resources> = Resources[R] extends { upload: infer U extends BinaryUploadOps }
  ? { uploadMany: BulkUploadOf<U> }
  : unknown;

export type ResourceApi<R extends keyof Resources> = {
  [M in keyof Resources[R]]: Resources[R][M] extends OperationId ? MethodOf<Resources[R][M]> : never;
} & UploadExtras<R>;

export type Render = Operations['getRender']['response']['render'];

export interface WaitForRenderOptions extends RequestOptions {
  /** Status polling interval; default the client's `renderPollIntervalMs` (spec: 60 s). */
  pollIntervalMs?: number;
  /** Give up after this many milliseconds (throws `RenderError`). Default 30 minutes. */
  timeoutMs?: number;
}

interface RenderExtras {
  /** Creates the render (or gets the existing one) and polls until it is `completed`. */
  createAndWait(body: Op<'createRender'>['body'], options?: WaitForRenderOptions): Promise<Render>;
  /** Polls an existing render until it is `completed`; a `failed` render throws `RenderError`. */
  waitFor(renderReference: string, options?: WaitForRenderOptions): Promise<Render>;
}

type Api = { [R in keyof Resources]: ResourceApi<R> } & { renders: RenderExtras };

/** The resource members are assigned in the constructor from the generated table. */
export interface Client extends Api {}

/**
 * The partner API client: `client.<resource>.<method>(...)`, one method per operation of the
 * OpenAPI document (see `Resources` in generated.ts for the full table).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: members come from the generated table (interface above)
export class Client {
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    const api: Record<string, Record<string, unknown>> = {};
    for (const [id, spec] of Object.entries(operations) as Array<[OperationId, OperationSpec]>) {
      api[spec.resource] ??= {};
      api[spec.resource][spec.name] = (...args: unknown[]) => this.invoke(id, args);
      if (spec.body === 'binary' && spec.name === 'upload') {
        api[spec.resource].uploadMany = (sources: UploadSource[], opts?: BulkUploadOptions<unknown>) =>
          this.bulkUpload(id as BinaryUploadOps, sources, opts);
      }
    }
    if (api.renders) {
      api.renders.createAndWait = (body: Op<'createRender'>['body'], opts?: WaitForRenderOptions) =>
        this.createAndWait(body, opts);
      api.renders.waitFor = (ref: string, opts?: WaitForRenderOptions) => this.waitForRender(ref, opts);
    }
    Object.assign(this, api);
  }

  /** The server address the client talks to (without `/v2`). */
  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** `X-RateLimit` / `X-RateLimit-Policy` of the last answer that carried them. */
  get rateLimit(): RateLimitState | null {
    return this.http.rateLimit;
  }

  /** Whether this SDK build knows an operation (its generated table is from one document). */
  static hasOperation(id: string): id is OperationId {
    return Object.hasOwn(operations, id);
  }

  /** The operationId of `METHOD /v2/path-template` in this SDK build, if it has one. */
  static operationFor(method: string, path: string): OperationId | undefined {
    const m = method.toUpperCase();
    return (Object.keys(operations) as OperationId[]).find(
      (id) => operations[id].method === m && operations[id].path === path,
    );
  }

  /**
   * Calls an operation by an id known only at run time (arguments as for the typed method).
   * Prefer the typed methods; this serves code that must run against several SDK builds.
   */
  callById(id: string, ...args: unknown[]): unknown {
    if (!Client.hasOperation(id))
      throw new TypeError(`this SDK build has no operation ${id}; regenerate it (npm run sdk:generate)`);
    return this.invoke(id, args);
  }

  /** Calls an operation by its operationId, e.g. `client.call('getOrder', ref)`. */
  call<K extends OperationId>(id: K, ...args: ArgsOf<K>): ResultOf<K> {
    return this.invoke(id, args) as ResultOf<K>;
  }

  private invoke(id: OperationId, args: unknown[]): unknown {
    const spec: OperationSpec = operations[id];
    let i = spec.pathParams.length;
    const params = args.slice(0, i);
    let path = spec.path;
    // A bad argument surfaces where the result is awaited or iterated, like any other failure.
    let invalid: TypeError | undefined;
    spec.pathParams.forEach((name, n) => {
      const value = params[n];
      if (typeof value !== 'string' || value === '')
        invalid ??= new TypeError(`${id}: ${name} must be a non-empty string`);
      else path = path.replace(`{${name}}`, encodeURIComponent(value));
    });
    const body = spec.body === 'none' ? undefined : args[i++];
    const query = spec.query.length > 0 ? (args[i++] as Record<string, unknown> | undefined) : undefined;
    const options = args[i] as DownloadOptions | undefined;

    if (spec.result === 'page') {
      return new Paginator(
        async (cursor) => {
          if (invalid) throw invalid;
          const res = await this.http.send({ method: spec.method, path, query: { ...query, cursor }, options });
          return res.json();
        },
        spec.pageKey ?? '',
        query?.cursor as string | undefined,
      );
    }
    if (invalid) return Promise.reject(invalid);
    return this.send(spec, path, body, query, options);
  }

  private async send(
    spec: OperationSpec,
    path: string,
    body: unknown,
    query: Record<string, unknown> | undefined,
    options: DownloadOptions | undefined,
  ): Promise<unknown> {
    const upload = spec.body === 'binary' ? await prepareUpload(body as UploadSource) : undefined;
    const json = spec.body === 'json' ? body : undefined;
    if (spec.result === 'binary') return this.download(spec, path, query, options);
    const res = await this.http.send({ method: spec.method, path, query, json, upload, options });
    if (spec.result === 'empty' || res.status === 204) {
      await res.body?.cancel().catch(() => {});
      return undefined;
    }
    return res.json();
  }

  /** Honours `202 Retry-After` of files that are still being made, then hands over the stream. */
  private async download(
    spec: OperationSpec,
    path: string,
    query: Record<string, unknown> | undefined,
    options: DownloadOptions = {},
  ): Promise<Download> {
    const deadline = Date.now() + (options.maxWaitMs ?? 10 * 60_000);
    for (;;) {
      const res = await this.http.send({ method: spec.method, path, query, options, accept: [202, 304] });
      if (res.status !== 202) return new Download(res);
      await res.body?.cancel().catch(() => {});
      const retryAfter = Number(res.headers.get('retry-after') ?? '1') || 1;
      if (options.wait === false)
        throw new NotReadyError(`${path} is not ready yet; retry after ${retryAfter} s`, retryAfter);
      if (Date.now() + retryAfter * 1000 > deadline) {
        throw new NotReadyError(
          `${path} was still not ready after waiting ${options.maxWaitMs ?? 600_000} ms`,
          retryAfter,
        );
      }
      await sleep(retryAfter * 1000, options.signal);
    }
  }

  private async createAndWait(body: Op<'createRender'>['body'], options: WaitForRenderOptions = {}): Promise<Render> {
    const created = await this.call('createRender', body, options);
    return this.waitForRender(created.render.reference, options);
  }

  private async waitForRender(reference: string, options: WaitForRenderOptions = {}): Promise<Render> {
    const interval = options.pollIntervalMs ?? this.http.options.renderPollIntervalMs ?? 60_000;
    const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
    const { pollIntervalMs: _p, timeoutMs: _t, ...requestOptions } = options;
    for (;;) {
      const { render } = await this.call('getRender', reference, requestOptions);
      if (render.status === 'completed') return render;
      if (render.status === 'failed') throw new RenderError(`render ${reference} failed`, reference, render.status);
      if (Date.now() + interval > deadline)
        throw new RenderError(
          `render ${reference} is still ${render.status} after the time-out`,
          reference,
          render.status,
        );
      await sleep(interval, options.signal);
    }
  }

  /** Uploads many files with a few in flight; reports progress after each one. */
  async bulkUpload<K extends BinaryUploadOps>(
    id: K,
    sources: UploadSource[],
    options: BulkUploadOptions<Op<K>['response']> = {},
  ): Promise<BulkUploadResult<Op<K>['response']>> {
    const { concurrency = 3, onProgress, stopOnError = false, ...requestOptions } = options;
    const results: BulkUploadResult<Op<K>['response']> = new Array(sources.length);
    let next = 0;
    let done = 0;
    let failed = 0;
    let stop: unknown;
    const worker = async () => {
      while (next < sources.length && stop === undefined) {
        const index = next++;
        const source = describeSource(sources[index], index);
        const entry: BulkUploadResult<Op<K>['response']>[number] = { source, index };
        try {
          const noQuery = operations[id].query.length > 0 ? [undefined] : [];
          entry.result = (await this.invoke(id, [
            sources[index],
            ...noQuery,
            { ...requestOptions, idempotencyKey: undefined },
          ])) as Op<K>['response'];
        } catch (error) {
          entry.error = error;
          failed++;
          if (stopOnError) stop = error;
        }
        results[index] = entry;
        done++;
        onProgress?.({ done, total: sources.length, failed, source, index, result: entry.result, error: entry.error });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, sources.length)) }, worker));
    if (stop !== undefined) throw stop;
    return results;
  }
}

export { toApiError };
