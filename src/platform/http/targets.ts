import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { badRequest } from '../errors.ts';

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

/** Loopback, private, link-local (cloud metadata), shared, multicast or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
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

export interface DeliveryResult {
  status: number | null;
  durationMs: number;
  error: string | null;
  body?: string;
}

/**
 * One HTTP request to a partner's server. The address is checked after DNS resolution, at
 * connection time, so a name that resolves to a private address (or changes its answer between a
 * check and the connection) is refused. Redirects are not followed.
 */
export function deliver(
  rawUrl: string,
  opts: {
    method: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    timeoutMs: number;
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
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 2048) body += chunk;
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve(done(res.statusCode ?? null, null, body.slice(0, 2048)));
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        resolve(done(res.statusCode ?? null, e.message));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)));
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve(done(null, e.message));
    });
    req.end(opts.body);
  });
}
