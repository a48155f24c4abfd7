import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { notFound } from '../platform/errors.ts';

const PREFIX = '/docs';
const FONTS = `${PREFIX}/fonts`;

/** The fonts of the reference, served from their npm packages (Latin and Latin Extended). */
const FONT_FILES: Record<string, string> = Object.fromEntries(
  ['inter', 'jetbrains-mono'].flatMap((family) =>
    ['latin', 'latin-ext'].flatMap((subset) =>
      ['normal', 'italic'].map((style) => {
        const file = `${family}-${subset}-wght-${style}.woff2`;
        const pkg = createRequire(import.meta.url).resolve(`@fontsource-variable/${family}/package.json`);
        return [file, join(dirname(pkg), 'files', file)];
      }),
    ),
  ),
);

const LATIN =
  'U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD';
const LATIN_EXT =
  'U+0100-02BA, U+02BD-02C5, U+02C7-02CC, U+02CE-02D7, U+02DD-02FF, U+0304, U+0308, U+0329, U+1D00-1DBF, U+1E00-1E9F, U+1EF2-1EFF, U+2020, U+20A0-20AB, U+20AD-20C0, U+2113, U+2C60-2C7F, U+A720-A7FF';

function fontFaces(): string {
  const faces: string[] = [];
  for (const [family, name] of [
    ['inter', 'Inter'],
    ['jetbrains-mono', 'JetBrains Mono'],
  ])
    for (const [subset, range] of [
      ['latin-ext', LATIN_EXT],
      ['latin', LATIN],
    ])
      for (const style of ['normal', 'italic'])
        faces.push(
          `@font-face { font-family: '${name}'; font-style: ${style}; font-display: swap; font-weight: 100 900; ` +
            `src: url(${FONTS}/${family}-${subset}-wght-${style}.woff2) format('woff2-variations'); unicode-range: ${range}; }`,
        );
  return faces.join('\n');
}

/**
 * The reference works with no network at all: nothing of Scalar's that needs its services (the AI
 * agent, the share/deploy toolbar, telemetry, its font server), fonts from this server, and a title
 * of our own. "Test request" calls this server directly (no request proxy is configured).
 */
const REFERENCE_CONFIGURATION = {
  url: '/v2/openapi.json',
  pageTitle: 'Partner API v2 · Reference',
  title: 'Partner API v2',
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  withDefaultFonts: false,
  documentDownloadType: 'json',
  customCss: `${fontFaces()}
:root { --scalar-font: 'Inter', system-ui, sans-serif; --scalar-font-code: 'JetBrains Mono', ui-monospace, monospace; }`,
} as const;
const SCRIPT = `${PREFIX}/js/scalar.js`;

/** Scalar's own placeholder for an API key (base64 of a joke), in its bundle; the key's hint replaces it. */
const SCALAR_KEY_PLACEHOLDER = 'placeholder:"QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT"';

/** The bundle with the shape of this service's keys as the placeholder of the key field. */
function withKeyHint(script: Buffer, keyHint: string): Buffer {
  const text = script.toString('utf8');
  if (!text.includes(SCALAR_KEY_PLACEHOLDER)) return script;
  return Buffer.from(text.replaceAll(SCALAR_KEY_PLACEHOLDER, `placeholder:${JSON.stringify(keyHint)}`));
}

/** Set by Fastify for the reply it sends, or meaningless once the response is copied. */
const NOT_COPIED = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Captured {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/**
 * The API reference UI (Scalar) at /docs, loaded on its first request.
 *
 * `@scalar/fastify-api-reference` embeds the 4 MB browser bundle as a string in its module and
 * imports an OpenAPI parser: ~30 MB in every server, though few ever serve /docs. Fastify takes no
 * routes once started, so the plugin's own routes are declared here and, on the first request, the
 * plugin is registered in a private Fastify instance that answers them through `inject`. The page
 * and the script stay the plugin's own, byte for byte and with its headers, for whatever version is
 * installed; serving them by hand would mean copying the plugin's HTML and reaching into its bundle.
 * One string in the bundle is changed: the placeholder of the key field shows `keyHint` (`sk_test_…`).
 */
export function installApiReference(app: FastifyInstance, keyHint: string): void {
  let loading: Promise<{ inner: FastifyInstance; script: Captured }> | undefined;
  const load = async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    // As in the app, /docs reaches the page route, whose handler redirects it to /docs/.
    const inner = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
    await inner.register(scalar, {
      routePrefix: PREFIX,
      configuration: REFERENCE_CONFIGURATION,
    });
    // The script is the same 4 MB on every request: taken once, instead of copied through
    // `inject` each time (several copies of it per request, which the allocator then keeps).
    const script = await inner.inject({ method: 'GET', url: SCRIPT });
    const body = withKeyHint(script.rawPayload, keyHint);
    return { inner, script: { statusCode: script.statusCode, headers: script.headers, body } };
  };
  const loaded = () => {
    // A failed load is retried by the next request instead of being remembered.
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };

  // The plugin's routes for a `url` configuration; the app ignores trailing slashes, so /docs lands here too.
  app.get(`${PREFIX}/`, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const page = await (await loaded()).inner.inject({ method: 'GET', url: request.url });
    return send(reply, { statusCode: page.statusCode, headers: page.headers, body: page.rawPayload });
  });
  app.get(SCRIPT, { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    send(reply, (await loaded()).script),
  );
  app.get<{ Params: { file: string } }>(
    `${FONTS}/:file`,
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const path = FONT_FILES[request.params.file];
      if (!path) throw notFound('Font', request.params.file);
      return reply
        .header('content-type', 'font/woff2')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(createReadStream(path));
    },
  );
  app.addHook('onClose', async () => {
    const reference = await loading?.catch(() => undefined);
    await reference?.inner.close();
  });
}

function send(reply: FastifyReply, res: Captured): FastifyReply {
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && !NOT_COPIED.has(name)) reply.header(name, value);
  }
  // An empty Buffer would gain a content type the plugin's redirect does not have.
  return reply.status(res.statusCode).send(res.body.length > 0 ? res.body : undefined);
}
