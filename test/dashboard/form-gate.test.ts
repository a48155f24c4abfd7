import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { Agent, csrfOf, multipart, signedIn } from './helpers.ts';

/** Counts the binary values `Object.entries` is asked to walk while `run` runs. */
async function binaryWalks(run: () => Promise<unknown>): Promise<number> {
  const entries = Object.entries;
  let walked = 0;
  Object.entries = ((value: object) => {
    if (ArrayBuffer.isView(value)) walked++;
    return entries(value);
  }) as typeof Object.entries;
  try {
    await run();
  } finally {
    Object.entries = entries;
  }
  return walked;
}

const MiB = 1024 * 1024;
const fileOf = (bytes: number) => ({
  name: 'logo',
  filename: 'x.bin',
  contentType: 'application/octet-stream',
  data: Buffer.alloc(bytes, 0x61),
});

/** Sends the headers and the first `sent` bytes of `body`, then waits for the answer without sending the rest. */
function partialPost(port: number, path: string, contentType: string, body: Buffer, sent: number) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer: the server waited for the rest of the body before refusing'));
    }, 15_000);
    socket.on('data', (d) => {
      answer += d;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', reject);
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: ${contentType}\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, sent));
  });
}

describe('dashboard and console forms: refused from their headers, bytes never walked', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('1 MiB of multipart to /dashboard/sign-in without a cookie: 403, and no Buffer is ever walked', async () => {
    // Just under the 1 MiB body limit, so only the gate can refuse it.
    const form = multipart({ email: 'x@example.com', password: 'whatever' }, fileOf(MiB - 1024));
    assert.ok(form.body.length <= MiB && form.body.length > MiB - 2048);
    let res: Awaited<ReturnType<Agent['request']>> | undefined;
    const walked = await binaryWalks(async () => {
      res = await new Agent(t).request('POST', '/dashboard/sign-in', {
        body: form.body,
        contentType: form.contentType,
      });
    });
    assert.equal(walked, 0, 'the NUL check walked the file byte by byte');
    assert.equal(res!.statusCode, 403);
    assert.match(res!.body, /security token/);
    assert.equal(res!.headers.connection, 'close', 'the unread body is never read: the connection closes');
  });

  it('the refusal comes before the body is parsed: a malformed multipart body is a 403, not a 400', async () => {
    for (const path of ['/dashboard/sign-in', '/dashboard/invitation', '/dashboard/stores', '/console/organizations']) {
      const res = await new Agent(t).request('POST', path, {
        body: Buffer.from('not a multipart body at all'),
        contentType: 'multipart/form-data; boundary=nothing',
      });
      assert.equal(res.statusCode, 403, path);
      assert.match(res.body, /security token/, path);
    }
  });

  it('answers over a socket while most of a 1 MiB body is still unsent', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const form = multipart({ email: 'x@example.com' }, fileOf(MiB));
    const answer = await partialPost(port, '/dashboard/sign-in', form.contentType, form.body, 64 * 1024);
    assert.match(answer, /^HTTP\/1\.1 403 /);
    assert.match(answer, /security token/);
    const urlencoded = Buffer.from(`email=${'x'.repeat(200 * 1024)}`);
    const console = await partialPost(
      port,
      '/console/organizations',
      'application/x-www-form-urlencoded',
      urlencoded,
      1024,
    );
    assert.match(console, /^HTTP\/1\.1 403 /);
  });

  it('multipart only where a file is taken: 415 elsewhere, before the body is read', async () => {
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    const withToken = multipart({ _csrf: csrfOf(page.body), email: 'x@example.com', password: 'x' }, fileOf(10));
    const signIn = await a.request('POST', '/dashboard/sign-in', {
      body: withToken.body,
      contentType: withToken.contentType,
    });
    assert.equal(signIn.statusCode, 415, 'the sign-in form takes no file');
    assert.match(signIn.body, /takes no file/);
    const partner = await signedIn(t);
    const csrf = csrfOf((await partner.get('/dashboard')).body);
    const store = multipart({ _csrf: csrf, name: 'A store' }, fileOf(10));
    const refused = await partner.request('POST', '/dashboard/stores', {
      body: store.body,
      contentType: store.contentType,
    });
    assert.equal(refused.statusCode, 415);
  });

  it('a signed-in logo upload is checked for NUL characters without walking the file', async () => {
    const partner = await signedIn(t);
    const ref = (await call(t, 'GET', '/v2/brands')).data.brands[0].reference;
    const csrf = csrfOf((await partner.get(`/dashboard/brands/${ref}`)).body);
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#336699' } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const form = multipart(
      { _csrf: csrf },
      { name: 'logo', filename: 'logo.png', contentType: 'image/png', data: png },
    );
    let status = 0;
    const walked = await binaryWalks(async () => {
      status = (
        await partner.request('POST', `/dashboard/brands/${ref}/logo`, {
          body: form.body,
          contentType: form.contentType,
        })
      ).statusCode;
    });
    assert.equal(status, 303);
    assert.equal(walked, 0);
    const nul = multipart(
      { _csrf: csrf, note: 'a\u0000b' },
      { name: 'logo', filename: 'logo.png', contentType: 'image/png', data: png },
    );
    const refused = await partner.request('POST', `/dashboard/brands/${ref}/logo`, {
      body: nul.body,
      contentType: nul.contentType,
    });
    assert.equal(refused.statusCode, 400, 'text fields are still checked');
    assert.match(refused.body, /NUL/);
  });
});
