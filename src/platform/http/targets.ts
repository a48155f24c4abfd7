import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { badRequest } from '../errors.ts';
import { redactSecrets } from '../redact.ts';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted IPv4), or null. */
function ipv6Bytes(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const b = dotted[1].split('.').map(Number);
    text =
      text.slice(0, -dotted[1].length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail, ...rest] = text.split('::');
  if (rest.length) return null;
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const h = part(head);
  const t = part(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
}

const v4 = (b: number[]) => b.join('.');
const startsWith = (bytes: number[], prefix: number[]) => prefix.every((v, i) => bytes[i] === v);

/**
 * The IPv4 address an IPv6 address carries in one of the forms that reach IPv4 hosts:
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96),
 * NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32, the client's
 * address, inverted). Each is judged as that IPv4 address.
 */
export function embeddedIpv4(address: string): string[] {
  const b = ipv6Bytes(address);
  if (!b) return [];
  const zeros = (n: number) => Array(n).fill(0);
  const last4 = b.slice(12);
  if (startsWith(b, [...zeros(10), 0xff, 0xff])) return [v4(last4)];
  if (startsWith(b, [...zeros(8), 0xff, 0xff, 0, 0])) return [v4(last4)];
  if (startsWith(b, zeros(12))) return [v4(last4)];
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, ...zeros(8)]) || startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1]))
    return [v4(last4)];
  if (startsWith(b, [0x20, 0x02])) return [v4(b.slice(2, 6))];
  if (startsWith(b, [0x20, 0x01, 0, 0])) return [v4(b.slice(4, 8)), v4(last4.map((x) => x ^ 0xff))];
  return [];
}

/** Loopback, private, link-local (cloud metadata), shared, multicast or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner.length) return inner.some((a) => blocked.check(a, 'ipv4'));
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** Checks the shape of a callback or webhook URL when it is configured. */
export function checkCallbackUrl(raw: string, opts: { allowPrivate: boolean; field: string }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`${opts.field} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`${opts.field} must be an http or https URL`);
  if (url.username || url.password) throw badRequest(`${opts.field} must not carry credentials`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (
    !opts.allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host)))
  ) {
    throw badRequest(`${opts.field} must not point at a loopback, private or link-local address`);
  }
  return url;
}

const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|socket hang up/;
const QUERY_VALUE = /([?&][^=\s&#?]+)=[^\s&#"'<>]*/g;
const MAX_FAILURE_TEXT = 300;

/**
 * What a delivery log shown to the partner says of a failed attempt (`target`: "the endpoint").
 * Refused, reset, unreachable and timed-out connections all read the same, so the log cannot map
 * which ports of a host are open or filtered. Other errors are kept as one short line without query values or API keys:
 * a partner's URL may carry a token in its query, and error texts may quote the URL.
 */
export function describeFailure(status: number | null, error: string | null, target: string): string {
  if (status === null && error && CONNECTION_FAILURE.test(error)) return `could not connect to ${target}`;
  if (!error) return `${target} answered HTTP ${status}`;
  const line = redactSecrets(error.replace(/\s+/g, ' ').trim().replace(QUERY_VALUE, '$1=[redacted]'));
  return line.length > MAX_FAILURE_TEXT
    ? `${line.slice(0, MAX_FAILURE_TEXT - 1)}…`
    : line || 'failed without a message';
}

export interface DeliveryResult {
  status: number | null;
  durationMs: number;
  error: string | null;
  body?: string;
}

/**
 * One HTTP request to a partner's server. The address is checked after DNS resolution, at
 * connection time, so a name that resolves to a private address (or changes its answer between a
 * check and the connection) is refused. Redirects are not followed. `minFailureMs`: an attempt
 * that got no HTTP answer resolves no sooner, so its timing does not tell a refused connection
 * from a filtered one.
 */
export function deliver(
  rawUrl: string,
  opts: {
    method: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    timeoutMs: number;
    minFailureMs?: number;
    allowPrivate: boolean;
  },
): Promise<DeliveryResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null, body?: string): DeliveryResult => ({
    status,
    error,
    body,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = checkCallbackUrl(rawUrl, { allowPrivate: opts.allowPrivate, field: 'url' });
    } catch (err) {
      resolve(done(null, (err as Error).message));
      return;
    }
    const lookup = (hostname: string, options: any, cb: (...args: any[]) => void) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return cb(err);
        const list = Array.isArray(addresses) ? addresses : [addresses];
        if (!opts.allowPrivate && list.some((a) => isPrivateAddress(a.address))) {
          return cb(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }));
        }
        if (options?.all) return cb(null, list);
        return cb(null, list[0].address, list[0].family);
      });
    };
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, {
      method: opts.method,
      headers: opts.headers,
      lookup: lookup as any,
      timeout: opts.timeoutMs,
      agent: false,
    });
    // One bound for the whole attempt, connection, headers and body alike: a receiver trickling
    // its answer a byte at a time cannot hold a delivery slot past the time-out.
    let settled = false;
    let status: number | null = null;
    let connected = false;
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (connected = true));
      else connected = true;
    });
    const finish = (error: string | null, body?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const wait = status === null ? (opts.minFailureMs ?? 0) - (performance.now() - started) : 0;
      if (wait > 0) setTimeout(() => resolve(done(status, error, body)), wait);
      else resolve(done(status, error, body));
    };
    // A connection that never completes is a connection failure like a refused one.
    const timedOut = () =>
      connected ? `timed out after ${opts.timeoutMs} ms` : `connect ETIMEDOUT after ${opts.timeoutMs} ms`;
    const timer = setTimeout(() => {
      finish(timedOut());
      req.destroy();
    }, opts.timeoutMs);
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 2048) body += chunk;
      });
      res.on('end', () => finish(null, body.slice(0, 2048)));
      res.on('error', (e) => finish(e.message));
      res.on('close', () => finish(res.complete ? null : 'the connection closed before the answer was complete'));
    });
    req.on('timeout', () => req.destroy(new Error(timedOut())));
    req.on('error', (e) => finish(e.message));
    req.end(opts.body);
  });
}
