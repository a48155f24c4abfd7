import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db/index.ts';
import { UploadedFile } from '../../platform/http/upload-file.ts';
import { redactSecrets } from '../../platform/redact.ts';
import { type LoggedRequest, type LoggedRequestPage, loggedRequest, loggedRequestPage } from './logged-request.ts';
import { redact, redactPayload } from './redact.ts';
import { PendingBatch, type RequestLogFilter, type RequestRecord, SEQ_PER_BATCH, requestLogRepo } from './repo.ts';

/** Records packed together (RequestLog.record). */
const QUEUE = 64;

/** A request's address as pages link it: digits that fit the bigint it is stored as. */
export const isRequestSeq = (seq: string): boolean => /^\d{1,18}$/.test(seq);

export type { LoggedRequest, LoggedRequestPage } from './logged-request.ts';

export interface RequestLogOptions {
  db: Db;
  log: FastifyBaseLogger;
  /** Requests one stored batch holds (at most SEQ_PER_BATCH - 1). */
  batchRows?: number;
  /** A write goes when this many rows wait, or `flushMs` after the first one. */
  writeRows?: number;
  flushMs?: number;
  /** Rows beyond this many waiting are dropped (the database is down or slow): the API never waits. */
  maxBuffered?: number;
  /** Whether requests are recorded from the start (REQUEST_LOG); an operator can pause and resume. */
  recording?: boolean;
}

/** What an operator sees of the log in this process. */
export interface RequestLogState {
  recording: boolean;
  /** Rows recorded and not yet stored (waiting or being written). */
  buffered: number;
  /** Rows given up on since the process started: over maxBuffered, or their write failed. */
  dropped: number;
}

/**
 * Collects one record per /v2 request in memory and writes them in batches, one INSERT each, off
 * the request path: recording queues the record, a few dozen are packed into their organization's
 * bytes at once, and a failed write is logged and dropped instead of failing or slowing any request.
 */
export class RequestLog {
  /** Each organization's batch being filled; full ones wait in `full` for the next write. */
  private pending = new Map<string, PendingBatch>();
  private full: PendingBatch[] = [];
  /** Records taken and not packed yet (fewer than packRows). */
  private readonly queue: Array<RequestRecord | null> = new Array(QUEUE).fill(null);
  private queued = 0;
  private readonly packRows: number;
  private pendingRows = 0;
  /** The batch the last request went to, while it is still being filled. */
  private lastBatch: PendingBatch | null = null;
  /** Rows handed to a write that has not finished yet: they count against maxBuffered too. */
  private writingRows = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly batchRows: number;
  private readonly writeRows: number;
  private readonly flushMs: number;
  private readonly maxBuffered: number;
  dropped = 0;
  /** Read by the hook on every request: paused, a request costs the hook one check. */
  recording: boolean;

  constructor(private readonly o: RequestLogOptions) {
    this.recording = o.recording ?? true;
    // Each INSERT costs PGlite's thread, which shares the machine's cores with HTTP, a fixed
    // ~0.3-0.6 ms, most of a packed 999-row write. At 999 rows a write the thread's CPU per request
    // is ~1.5 µs, against ~3.4 at 500 rows (decision 0123); a busy node writes up to eight full batches in one statement, about once a second.
    this.batchRows = Math.max(1, Math.min(o.batchRows ?? SEQ_PER_BATCH - 1, SEQ_PER_BATCH - 1));
    this.maxBuffered = o.maxBuffered ?? 20_000;
    this.writeRows = Math.max(1, Math.min(o.writeRows ?? 8 * this.batchRows, this.maxBuffered));
    this.flushMs = o.flushMs ?? 1000;
    this.packRows = Math.min(QUEUE, this.writeRows);
  }

  /**
   * Takes a request's record; it is packed with the next few dozen (QUEUE), not alone. Packing
   * costs ~0.1 µs a request in a loop, but as one step between two requests (whose own work leaves
   * the log's code and buffers out of the caches) it costs the event loop several times that: by
   * crossover, the event loop's extra CPU per logged GET is 0.4-1.1 µs packed by the dozen against
   * 1.2-1.5 µs packed one by one.
   */
  record(r: RequestRecord): void {
    if (this.pendingRows + this.queued + this.writingRows >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.queue[this.queued++] = r;
    if (this.queued >= this.packRows) {
      this.pack();
      if (this.pendingRows >= this.writeRows) void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Packs the queued records into their organizations' batches, in the order they came. */
  private pack(): void {
    const n = this.queued;
    this.queued = 0;
    for (let i = 0; i < n; i++) {
      const r = this.queue[i]!;
      this.queue[i] = null;
      // Most requests come from the organization the last one did: no lookup then.
      let batch =
        r.organizationId === this.lastBatch?.organizationId ? this.lastBatch : this.pending.get(r.organizationId);
      if (!batch) {
        batch = new PendingBatch(r.organizationId);
        this.pending.set(r.organizationId, batch);
      }
      batch.add(r);
      this.lastBatch = batch;
      if (batch.count >= this.batchRows) {
        this.full.push(batch);
        this.pending.delete(r.organizationId);
        this.lastBatch = null;
      }
    }
    this.pendingRows += n;
  }

  /**
   * Stops or resumes recording. Pausing first writes what is buffered (rows whose write fails count
   * as dropped), so a paused log holds nothing. For an incident (the database struggling with
   * writes) or to measure what the log costs a running node, all else the same (`npm run bench`).
   */
  async setRecording(recording: boolean): Promise<RequestLogState> {
    this.recording = recording;
    if (!recording) await this.flush();
    return this.state();
  }

  state(): RequestLogState {
    return {
      recording: this.recording,
      buffered: this.pendingRows + this.queued + this.writingRows,
      dropped: this.dropped,
    };
  }

  /** Writes everything recorded so far; resolves when it is stored (or given up on). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.pack();
    const batches = [...this.full, ...this.pending.values()];
    const rows = this.pendingRows;
    this.full = [];
    this.pending = new Map();
    this.lastBatch = null;
    this.pendingRows = 0;
    this.writingRows += rows;
    // Writes run one after the other, so a slow database sees one INSERT at a time; while it is
    // slow, rows wait here up to maxBuffered and later ones are dropped.
    this.writing = this.writing.then(async () => {
      try {
        await requestLogRepo.insertMany(this.o.db, batches);
      } catch (err) {
        this.dropped += rows;
        this.o.log.warn({ err, rows }, 'request log batch not written');
      } finally {
        this.writingRows -= rows;
      }
    });
    return this.writing;
  }

  list(orgId: string, f: RequestLogFilter) {
    return requestLogRepo.list(this.o.db, orgId, f);
  }
  get(orgId: string, seq: string) {
    return isRequestSeq(seq) ? requestLogRepo.get(this.o.db, orgId, seq) : Promise.resolve(null);
  }
  byRequestId(requestId: string) {
    return requestLogRepo.byRequestId(this.o.db, requestId);
  }
  /** A page of the organization's requests, newest first, as other modules read them. */
  async requests(orgId: string, f: RequestLogFilter): Promise<LoggedRequestPage> {
    return loggedRequestPage(await this.list(orgId, f));
  }
  async request(orgId: string, seq: string): Promise<LoggedRequest | null> {
    const row = await this.get(orgId, seq);
    return row && loggedRequest(row);
  }
  /** Every stored request with this id, of any organization, with the organization's name (support). */
  async requestsWithId(requestId: string): Promise<LoggedRequest[]> {
    return (await this.byRequestId(requestId)).map(loggedRequest);
  }
  purgeBefore(before: Date) {
    return requestLogRepo.purgeBefore(this.o.db, before);
  }
}

/**
 * Records every request of the scope that has an organization (authenticated), once answered. The
 * hook is there whether the log records or not (REQUEST_LOG=false only starts it paused): paused,
 * it costs a request one check, and pausing takes away exactly what recording adds.
 */
export function installRequestLog(scope: FastifyInstance, log: RequestLog, nowMs: () => number): void {
  // A callback hook, not an async one: it runs on every request, and an async hook costs a promise
  // and a microtask turn each time (a measurable share of a GET on PostgreSQL). The error body comes
  // from `req.errorBody`, which the error paths set, instead of an onSend hook that every answer
  // would pass through for the sake of the few errors.
  scope.addHook('onResponse', (req, reply, done) => {
    try {
      record(req, reply);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  function record(req: FastifyRequest, reply: FastifyReply): void {
    const principal = req.principal;
    if (!principal || !log.recording) return;
    const status = reply.statusCode;
    const error = status >= 400;
    const response = error ? redactPayload(req.errorBody) : null;
    const code = response && typeof response === 'object' ? (response as { code?: unknown }).code : undefined;
    log.record({
      requestId: req.id,
      organizationId: principal.organizationId,
      keyId: principal.keyId,
      method: req.method,
      path: pathOf(req.url),
      status,
      latencyMs: Math.round(reply.elapsedTime),
      errorCode: typeof code === 'string' ? code.slice(0, 100) : null,
      requestBody: error ? bodyOf(req.body) : null,
      responseBody: response,
      at: nowMs(),
    });
  }
}

/** The path without the query, and without a secret a client put in it. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return redactSecrets(q === -1 ? url : url.slice(0, q)).slice(0, 500);
}

function bodyOf(body: unknown): unknown {
  if (body === undefined || body === null) return null;
  if (Buffer.isBuffer(body)) return `[${body.length} bytes]`;
  if (body instanceof UploadedFile) return `[${body.size} bytes]`;
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function') return '[upload]';
  return redact(body);
}
