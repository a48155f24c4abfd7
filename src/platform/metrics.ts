import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from './db/index.ts';
import { ApiError } from './errors.ts';
import { jobsRepo } from './jobs/queue.ts';
import { forcedCollections } from './memory/collect.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method and route template: its answers by status and its durations. */
interface RouteFigures {
  method: string;
  route: string;
  statuses: Map<number, number>;
  buckets: number[];
  sum: number;
  count: number;
}

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * Request, rate-limit and job-queue figures of one process in the Prometheus text format (written
 * by hand: three metric families do not need a client library). Counters live in memory, so each
 * API node is scraped on its own and Prometheus sums them; job counts come from the shared table.
 */
export class Metrics {
  /** By method, then route template: counting a request looks up two short strings, builds none. */
  private routes = new Map<string, Map<string, RouteFigures>>();
  private refusals = new Map<string, number>();
  private readonly started = Date.now();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.routes.get(method);
    if (!byRoute) {
      byRoute = new Map();
      this.routes.set(method, byRoute);
    }
    let r = byRoute.get(route);
    if (!r) {
      r = { method, route, statuses: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      byRoute.set(route, r);
    }
    r.statuses.set(status, (r.statuses.get(status) ?? 0) + 1);
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) r.buckets[i]++;
    r.sum += seconds;
    r.count++;
    if (status === 429) this.refusals.set(route, (this.refusals.get(route) ?? 0) + 1);
  }

  render(extra: { jobs: Record<string, number> | null; databaseUp: boolean }): string {
    const out: string[] = [];
    const all = [...this.routes.values()].flatMap((byRoute) => [...byRoute.values()]);
    out.push(
      '# HELP http_requests_total HTTP requests answered, by method, route template and status.',
      '# TYPE http_requests_total counter',
    );
    for (const r of all) {
      for (const [status, n] of r.statuses)
        out.push(`http_requests_total{method="${r.method}",route="${label(r.route)}",status="${status}"} ${n}`);
    }
    out.push(
      '# HELP http_request_duration_seconds Time from request to response, by method and route template.',
      '# TYPE http_request_duration_seconds histogram',
    );
    for (const r of all) {
      const l = `method="${r.method}",route="${label(r.route)}"`;
      for (const [i, b] of BUCKETS.entries())
        out.push(`http_request_duration_seconds_bucket{${l},le="${b}"} ${r.buckets[i]}`);
      out.push(
        `http_request_duration_seconds_bucket{${l},le="+Inf"} ${r.count}`,
        `http_request_duration_seconds_sum{${l}} ${r.sum.toFixed(6)}`,
        `http_request_duration_seconds_count{${l}} ${r.count}`,
      );
    }
    out.push(
      '# HELP rate_limit_refusals_total Requests refused with 429 rate_limited, by route template.',
      '# TYPE rate_limit_refusals_total counter',
    );
    for (const [route, n] of this.refusals) out.push(`rate_limit_refusals_total{route="${label(route)}"} ${n}`);
    out.push('# HELP jobs Background jobs in the shared queue, by status.', '# TYPE jobs gauge');
    for (const status of ['pending', 'running', 'succeeded', 'dead', ...Object.keys(extra.jobs ?? {})].filter(
      (s, i, a) => a.indexOf(s) === i,
    )) {
      if (extra.jobs) out.push(`jobs{status="${label(status)}"} ${extra.jobs[status] ?? 0}`);
    }
    out.push(
      '# HELP database_up 1 when the database answered this scrape.',
      '# TYPE database_up gauge',
      `database_up ${extra.databaseUp ? 1 : 0}`,
    );
    const mem = process.memoryUsage();
    const forced = forcedCollections();
    out.push(
      '# HELP process_resident_memory_bytes Resident memory.',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${mem.rss}`,
    );
    out.push(
      '# HELP nodejs_heap_used_bytes V8 heap in use.',
      '# TYPE nodejs_heap_used_bytes gauge',
      `nodejs_heap_used_bytes ${mem.heapUsed}`,
      // Image work holds its pixels outside the V8 heap: Buffers and SharedArrayBuffers count here.
      '# HELP nodejs_external_memory_bytes Memory of C++ objects bound to JavaScript, Buffers included.',
      '# TYPE nodejs_external_memory_bytes gauge',
      `nodejs_external_memory_bytes ${mem.external}`,
      '# HELP nodejs_array_buffers_bytes Memory of ArrayBuffers, SharedArrayBuffers and Buffers.',
      '# TYPE nodejs_array_buffers_bytes gauge',
      `nodejs_array_buffers_bytes ${mem.arrayBuffers}`,
      '# HELP nodejs_forced_collections_total Full collections the service asked V8 for because dead render buffers had piled up, on the compositor threads and on the event loop.',
      '# TYPE nodejs_forced_collections_total counter',
      `nodejs_forced_collections_total{where="threads"} ${forced.threads}`,
      `nodejs_forced_collections_total{where="event_loop"} ${forced.eventLoop}`,
    );
    out.push(
      '# HELP process_uptime_seconds Seconds since this process started serving.',
      '# TYPE process_uptime_seconds gauge',
      `process_uptime_seconds ${((Date.now() - this.started) / 1000).toFixed(0)}`,
    );
    return `${out.join('\n')}\n`;
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Counts every response of `app` and serves `GET /metrics` behind the operator token (Prometheus:
 * `authorization: {type: Bearer, credentials: …}`), so request figures never leak to the public.
 */
export function installMetrics(app: FastifyInstance, deps: { db: Db }, operatorToken: string): Metrics {
  const metrics = new Metrics();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { config: { access: 'operator' }, schema: { hide: true } }, async (request, reply) => {
    const auth = request.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!token || !sameToken(token, operatorToken))
      throw new ApiError('unauthorized', 'GET /metrics needs the operator token as a Bearer token');
    let jobs: Record<string, number> | null = null;
    let databaseUp = true;
    try {
      jobs = await jobsRepo.counts(deps.db);
    } catch {
      databaseUp = false;
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render({ jobs, databaseUp }));
  });
  return metrics;
}
