import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

const PREFIX = '/docs';
const SCRIPT = `${PREFIX}/js/scalar.js`;

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
 */
export function installApiReference(app: FastifyInstance): void {
  let loading: Promise<{ inner: FastifyInstance; script: Captured }> | undefined;
  const load = async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    // As in the app, /docs reaches the page route, whose handler redirects it to /docs/.
    const inner = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
    await inner.register(scalar, {
      routePrefix: PREFIX,
      configuration: { url: '/v2/openapi.json', title: 'Partner API v2 reference' },
    });
    // The script is the same 4 MB on every request: taken once, instead of copied through
    // `inject` each time (several copies of it per request, which the allocator then keeps).
    const script = await inner.inject({ method: 'GET', url: SCRIPT });
    return { inner, script: { statusCode: script.statusCode, headers: script.headers, body: script.rawPayload } };
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
