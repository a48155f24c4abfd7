import { connect, type Socket } from 'node:net';

/**
 * A paced load: each connection sends one request every `1000 / rate` ms, at times fixed in advance
 * (a random phase per connection, as independent clients have), one request in flight at a time.
 * Latency runs from the time a request was due, not from when it went out, so a slow response delays
 * the next request's send but still counts against it (no coordinated omission).
 *
 * Why not autocannon's `connectionRate`: it lets each connection send its quota back to back at the
 * start of every second and then idle, so 100 connections at 50 req/s arrive as 5,000 requests in the
 * first part of each second, twice or more the rate the scenario names.
 */
export interface PacedResult {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<number, number>;
  errors: number;
  /** The same figures over the warm-up, when the connections were new. */
  warmup: { p99: number; max: number };
}

export interface PacedOptions {
  /** Request headers of each connection (one connection per entry). */
  connections: Array<Record<string, string>>;
  path: string;
  /** Requests per second of each connection. */
  rate: number;
  seconds: number;
  /** Paced as the rest but not measured: the connections open and each organization is seen once. */
  warmupSeconds: number;
}

export function paced(base: string, opts: PacedOptions): Promise<PacedResult> {
  const url = new URL(base);
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  const early: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const start = performance.now() + 50;
  const measured = start + opts.warmupSeconds * 1000;
  const end = measured + opts.seconds * 1000;

  const runOne = (headers: Record<string, string>) =>
    new Promise<void>((resolve) => {
      const lines = [`GET ${opts.path} HTTP/1.1`, `host: ${url.host}`, 'connection: keep-alive'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      const request = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
      const socket: Socket = connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      let due = start + Math.random() * interval;
      let pending = Buffer.alloc(0);
      let timer: NodeJS.Timeout | undefined;
      let done = false;

      const finish = () => {
        if (done) return;
        done = true;
        if (timer) clearTimeout(timer);
        socket.destroy();
        resolve();
      };
      const send = () => {
        timer = undefined;
        if (due >= end) return finish();
        socket.write(request);
      };
      const schedule = () => {
        const wait = due - performance.now();
        if (wait > 0) timer = setTimeout(send, wait);
        else send();
      };
      socket.on('connect', schedule);
      socket.on('error', () => {
        if (!done) errors++;
        finish();
      });
      // A server that closes the connection must end this connection's run, not leave it waiting.
      socket.on('close', () => {
        if (!done && performance.now() < end) errors++;
        finish();
      });
      socket.on('data', (chunk) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        const head = pending.indexOf('\r\n\r\n');
        if (head < 0) return;
        const header = pending.subarray(0, head).toString('latin1');
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(header);
        if (!length) throw new Error(`paced load: a response without content-length: ${header.slice(0, 200)}`);
        const total = head + 4 + Number(length[1]);
        if (pending.length < total) return;
        const status = Number(header.slice(9, 12));
        if (due < measured) early.push(performance.now() - due);
        else {
          statuses[status] = (statuses[status] ?? 0) + 1;
          latencies.push(performance.now() - due);
        }
        pending = pending.subarray(total);
        due += interval;
        schedule();
      });
    });

  return Promise.all(opts.connections.map(runOne)).then(() => {
    const at = (xs: number[], q: number) => Math.round(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0);
    latencies.sort((a, b) => a - b);
    early.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      perSecond: Math.round(latencies.length / opts.seconds),
      p50: at(latencies, 0.5),
      p99: at(latencies, 0.99),
      max: at(latencies, 1),
      statuses,
      errors,
      warmup: { p99: at(early, 0.99), max: at(early, 1) },
    };
  });
}
