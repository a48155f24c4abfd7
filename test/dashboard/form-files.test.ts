import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { uploadMemory, uploadTempDir } from '../../src/platform/http/upload.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { type Agent, csrfOf, multipart, signedIn, textOf } from './helpers.ts';

/** The words of an answer's page, quotes unescaped. */
const said = (res: { body: string }) => textOf(res.body).replaceAll('&quot;', '"');

const LIMIT = 300_000;
const BOUNDARY = 'form-files-test';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A multipart body from parts in the order given: `[name, value]` fields and `[name, filename, bytes]` files. */
function body(parts: Array<[string, string] | [string, string, Buffer]>, end = `--${BOUNDARY}--\r\n`): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const file = p.length === 3 ? `; filename="${p[1]}"\r\nContent-Type: image/jpeg` : '';
    out.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p[0]}"${file}\r\n\r\n`));
    out.push(p.length === 3 ? p[2] : Buffer.from(p[1]), Buffer.from('\r\n'));
  }
  out.push(Buffer.from(end));
  return Buffer.concat(out);
}

/** Dashboard file forms: read part by part, the file to disk, every refusal clean. */
describe('dashboard file forms', () => {
  let t: TestApp;
  let partner: Agent;
  let csrf: string;
  let dir: string;
  let photo: Buffer;
  before(async () => {
    t = await createTestApp({ env: { UPLOAD_LIMIT_BYTES: String(LIMIT) } });
    dir = uploadTempDir(t.s.config.dataDir);
    partner = await signedIn(t);
    csrf = csrfOf((await partner.get('/dashboard/scenes')).body);
    photo = await sharp({ create: { width: 1200, height: 1000, channels: 3, background: '#8a9bb0' } })
      .jpeg()
      .toBuffer();
  });
  after(() => t.close());

  /** No temporary file outlives its request, and its share of the upload budget is given back. */
  async function nothingLeft(what: string) {
    for (let i = 0; i < 200 && (readdirSync(dir).length > 0 || uploadMemory.inUse > 0); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(readdirSync(dir), [], `${what}: a temporary file is left`);
    assert.equal(uploadMemory.inUse, 0, `${what}: the upload budget is not given back`);
  }
  const post = (payload: Buffer, contentType = TYPE, headers: Record<string, string> = {}) =>
    partner.request('POST', '/dashboard/scenes/photo', { body: payload, contentType, headers });

  it('stores a photo from its temporary file through the image upload, which it then removes', async () => {
    const before = (await call(t, 'GET', '/v2/images?limit=100')).data.images.length;
    const res = await post(
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', photo],
      ]),
    );
    assert.equal(res.statusCode, 303, res.body);
    const ref = String(res.headers.location).split('=')[1];
    const image = (await call(t, 'GET', `/v2/images/${ref}`)).data.image;
    assert.deepEqual([image.width, image.height], [1200, 1000]);
    assert.equal((await call(t, 'GET', '/v2/images?limit=100')).data.images.length, before + 1);
    await nothingLeft('a stored photo');
  });

  it('refuses a body over the route limit from its Content-Length, unread: 413 and the socket closes', async () => {
    const res = await post(
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', Buffer.alloc(LIMIT + 70 * 1024, 1)],
      ]),
    );
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers.connection, 'close');
    assert.match(said(res), /larger than the limit/);
    await nothingLeft('a body over the limit');
  });

  it('refuses a file over the limit while it streams (chunked, no Content-Length), removing what was written', async () => {
    const res = await post(
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', Buffer.alloc(LIMIT + 1, 1)],
      ]),
      TYPE,
      {
        'transfer-encoding': 'chunked',
      },
    );
    assert.equal(res.statusCode, 413);
    assert.match(said(res), new RegExp(`larger than the limit of ${LIMIT} bytes`));
    await nothingLeft('a file over the limit');
  });

  it('refuses too many fields and a second file with 413, naming the limit', async () => {
    const fields = Array.from({ length: 30 }, (_, i): [string, string] => [`f${i}`, 'x']);
    const many = await post(body([['_csrf', csrf], ...fields, ['photo', 'p.jpg', photo]]));
    assert.equal(many.statusCode, 413);
    assert.match(said(many), /more than 20 fields/);
    await nothingLeft('too many fields');
    const two = await post(
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', photo],
        ['photo', 'q.jpg', photo],
      ]),
    );
    assert.equal(two.statusCode, 413);
    assert.match(said(two), /takes one file, in the field "photo"/);
    await nothingLeft('two files');
    const long = await post(
      body([
        ['_csrf', csrf],
        ['name', 'x'.repeat(17 * 1024)],
        ['photo', 'p.jpg', photo],
      ]),
    );
    assert.equal(long.statusCode, 413);
    assert.match(said(long), /field "name" is longer than 16384 bytes/);
  });

  it('refuses a file under another field name, a body without boundary and a truncated body with 400', async () => {
    const wrong = await post(
      body([
        ['_csrf', csrf],
        ['logo', 'p.jpg', photo],
      ]),
    );
    assert.equal(wrong.statusCode, 400);
    assert.match(said(wrong), /takes its file in the field "photo", not "logo"/);
    const noBoundary = await post(
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', photo],
      ]),
      'multipart/form-data',
    );
    assert.equal(noBoundary.statusCode, 400);
    assert.match(said(noBoundary), /no boundary/);
    // Cut inside the file, and a whole file without the closing boundary (the parser gives up on the
    // part before the form hands it over).
    for (const cut of [
      body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', Buffer.alloc(50_000, 1)],
      ]).subarray(0, 20_000),
      body(
        [
          ['_csrf', csrf],
          ['photo', 'p.jpg', photo],
        ],
        '',
      ),
    ]) {
      const truncated = await post(cut);
      assert.equal(truncated.statusCode, 400);
      assert.match(said(truncated), /interrupted before the body was complete/);
      assert.match(truncated.headers['content-type'] as string, /text\/html/);
    }
    await nothingLeft('bad input');
  });

  it('reads no file before the form token matched: a file first or a wrong token is a 403', async () => {
    for (const parts of [
      [
        ['photo', 'p.jpg', photo],
        ['_csrf', csrf],
      ],
      [
        ['_csrf', 'x'.repeat(43)],
        ['photo', 'p.jpg', photo],
      ],
    ] as Array<Array<[string, string] | [string, string, Buffer]>>) {
      const res = await post(body(parts));
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /security token/);
      assert.equal(res.headers.connection, 'close');
    }
    await nothingLeft('a refused token');
  });

  it('a multipart body on a form without file stays a 415, and the logo and statement forms take theirs', async () => {
    const store = multipart(
      { _csrf: csrf, name: 'x' },
      { name: 'logo', filename: 'l.png', contentType: 'image/png', data: photo },
    );
    assert.equal(
      (await partner.request('POST', '/dashboard/stores', { body: store.body, contentType: store.contentType }))
        .statusCode,
      415,
    );
    const ref = (await call(t, 'GET', '/v2/brands')).data.brands[0].reference;
    const logo = await partner.request('POST', `/dashboard/brands/${ref}/logo`, {
      body: body([
        ['_csrf', csrf],
        ['photo', 'p.jpg', photo],
      ]),
      contentType: TYPE,
    });
    assert.equal(logo.statusCode, 400);
    assert.match(said(logo), /in the field "logo", not "photo"/);
    await nothingLeft('the logo form');
  });

  it('removes the partial file and gives the budget back when the client goes away mid-file', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as net.AddressInfo;
    const full = body([
      ['_csrf', csrf],
      ['photo', 'p.jpg', Buffer.alloc(LIMIT - 1000, 7)],
    ]);
    const cookie = [...partner.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /dashboard/scenes/photo HTTP/1.1\r\nhost: localhost\r\ncookie: ${cookie}\r\ncontent-type: ${TYPE}\r\ncontent-length: ${full.length}\r\n\r\n`,
    );
    socket.write(full.subarray(0, 100_000));
    for (let i = 0; i < 200 && readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(readdirSync(dir).length, 1, 'the file part is being written to disk');
    assert.ok(uploadMemory.inUse >= full.length, 'the form holds its declared size of the upload budget');
    socket.destroy();
    await nothingLeft('an aborted upload');
  });
});
