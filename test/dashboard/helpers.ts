import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../support/app.ts';

export const PARTNER = { email: 'partner@demo-cases.example', password: 'demo-password-1' };
export const OTHER_PARTNER = { email: 'partner@other-prints.example', password: 'demo-password-2' };
export const OPERATOR_USER = { email: 'operator@pod-service.example', password: 'operator-password-1' };

export type Form = Record<string, string | string[] | number | boolean | undefined>;

export function encodeForm(form: Form): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) {
    if (v === undefined || v === false) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one === true ? 'on' : one));
  }
  return p.toString();
}

/** The value of the first hidden `_csrf` field of a page. */
export const csrfOf = (body: string) => /name="_csrf" value="([^"]*)"/.exec(body)?.[1] ?? '';

/** A cookie-keeping client of the dashboard, like a browser without JavaScript. */
export class Agent {
  cookies = new Map<string, string>();
  setCookies: string[] = [];
  constructor(readonly t: TestApp) {}

  private keep(res: LightMyRequestResponse) {
    const raw = res.headers['set-cookie'];
    const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    this.setCookies = list;
    for (const c of list) {
      const [pair, ...attrs] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = decodeURIComponent(pair.slice(i + 1).trim());
      const expired = attrs.some(
        (a) =>
          /max-age=0\b/i.test(a.trim()) || (/^expires=/i.test(a.trim()) && Date.parse(a.trim().slice(8)) < Date.now()),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    opts: { form?: Form; body?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    let payload: string | Buffer | undefined = opts.body;
    if (opts.form) {
      payload = encodeForm(opts.form);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (opts.contentType) headers['content-type'] = opts.contentType;
    const res = await this.t.app.inject({ method, url, headers, payload });
    this.keep(res);
    return res;
  }
  get = (url: string) => this.request('GET', url);
  post = (url: string, form: Form) => this.request('POST', url, { form });

  /** POST with the session's token taken from `page` (default: the dashboard start page). */
  async submit(url: string, form: Form, page = '/dashboard') {
    const csrf = csrfOf((await this.get(page)).body);
    assert.ok(csrf, `a CSRF token on ${page}`);
    return this.post(url, { _csrf: csrf, ...form });
  }

  async signIn(user: { email: string; password: string }, area: 'dashboard' | 'console' = 'dashboard') {
    const page = await this.get(`/${area}/sign-in`);
    assert.equal(page.statusCode, 200, page.body);
    const res = await this.post(`/${area}/sign-in`, {
      _csrf: csrfOf(page.body),
      email: user.email,
      password: user.password,
    });
    assert.equal(res.statusCode, 303, res.body);
    return res;
  }
}

export async function signedIn(t: TestApp, user = PARTNER, area: 'dashboard' | 'console' = 'dashboard') {
  const a = new Agent(t);
  await a.signIn(user, area);
  return a;
}

/** Text of a page without tags, for readable assertions. */
export const textOf = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

/** A multipart body with one file and text fields. */
export function multipart(
  fields: Record<string, string>,
  file: { name: string; filename: string; contentType: string; data: Buffer },
) {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    ),
    file.data,
    Buffer.from('\r\n'),
  );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
