import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, notFound } from '../../platform/errors.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import { Nullable, PageQuery, Strict, Type } from '../../platform/http/schemas.ts';
import type { OperatorDeps } from './deps.ts';
import {
  CreateAccount,
  CreateApiKey,
  CreateBrand,
  CreateIntegrator,
  CreateOrganization,
  CreateStore,
  SetRateLimits,
  UpdateStore,
} from '../organization/schemas.ts';

const OrgParams = Strict({ organizationReference: Type.String({ maxLength: 200 }) });
const OrgChildParams = (name: string) =>
  Strict({ organizationReference: Type.String({ maxLength: 200 }), [name]: Type.String({ maxLength: 200 }) });

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The operator API: what staff and the CLI use to change a running system. It is not part of the
 * partner contract, so it stays out of the published OpenAPI document.
 */
export function operatorRoutes(app: FastifyInstance, s: OperatorDeps, operatorToken: string): void {
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token || !tokenMatches(token, operatorToken))
      throw new ApiError('unauthorized', 'Operator token missing or wrong (Authorization: Bearer <token>)');
  });
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true } as typeof route.schema;
  });
  organizationAdminRoutes(app, s);
  organizationPartRoutes(app, s);
  jobAndSeedRoutes(app, s);
}

/** Organizations: list, create, resolve a name or code, limits. */
function organizationAdminRoutes(app: FastifyInstance, s: OperatorDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const o = s.organization;

  r.get('/organizations', { config: { access: 'operator' }, schema: { querystring: Strict(PageQuery) } }, async (req) =>
    o.listOrganizations(req.query),
  );
  r.post('/organizations', { config: { access: 'operator' }, schema: { body: CreateOrganization } }, async (req) => ({
    organization: await o.createOrganization(req.body),
  }));
  // What the CLI accepts for an organization or a store: a reference, a store code or an exact name.
  const ResolveQuery = Strict({
    organization: Type.String({ minLength: 1, maxLength: 200 }),
    store: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  });
  r.get('/resolve', { config: { access: 'operator' }, schema: { querystring: ResolveQuery } }, async (req) => {
    const organization = await o.resolveOrganization(req.query.organization);
    const store = req.query.store ? await o.resolveStore(organization.reference, req.query.store) : undefined;
    return { organization, ...(store ? { store } : {}) };
  });
  r.get(
    '/organizations/:organizationReference',
    { config: { access: 'operator' }, schema: { params: OrgParams } },
    async (req) => {
      const row = await o.organizationFacts(req.params.organizationReference);
      return {
        organization: {
          ...(await o.organization(row.id)),
          rateLimits: row.rateLimits,
          rendertokenLimit: row.rendertokenLimit,
        },
      };
    },
  );
  r.put(
    '/organizations/:organizationReference/rate-limits',
    { config: { access: 'operator' }, schema: { params: OrgParams, body: Nullable(SetRateLimits) } },
    async (req) => o.setRateLimits(req.params.organizationReference, req.body),
  );
  r.put(
    '/organizations/:organizationReference/rendertoken-limit',
    {
      config: { access: 'operator' },
      schema: { params: OrgParams, body: Strict({ limit: Type.Integer({ minimum: 0 }) }) },
    },
    async (req) => o.setRendertokenLimit(req.params.organizationReference, req.body.limit),
  );
}

/** Integrators, and an organization's accounts, brands, stores and API keys. */
function organizationPartRoutes(app: FastifyInstance, s: OperatorDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const o = s.organization;
  r.get('/integrators', { config: { access: 'operator' }, schema: { querystring: Strict(PageQuery) } }, async (req) =>
    o.listIntegrators(req.query),
  );
  r.post('/integrators', { config: { access: 'operator' }, schema: { body: CreateIntegrator } }, async (req) =>
    o.createIntegrator(req.body),
  );
  r.get(
    '/organizations/:organizationReference/accounts',
    { config: { access: 'operator' }, schema: { params: OrgParams, querystring: Strict(PageQuery) } },
    async (req) => o.listAccounts(req.params.organizationReference, req.query),
  );
  r.post(
    '/organizations/:organizationReference/accounts',
    { config: { access: 'operator' }, schema: { params: OrgParams, body: CreateAccount } },
    async (req) => ({
      account: await s.billing.openAccount(req.params.organizationReference, req.body, 'operator API'),
    }),
  );
  r.get(
    '/organizations/:organizationReference/brands',
    { config: { access: 'operator' }, schema: { params: OrgParams, querystring: Strict(PageQuery) } },
    async (req) => o.listBrands(req.params.organizationReference, req.query),
  );
  r.post(
    '/organizations/:organizationReference/brands',
    { config: { access: 'operator' }, schema: { params: OrgParams, body: CreateBrand } },
    async (req) => ({
      brand: await o.createBrand(req.params.organizationReference, req.body),
    }),
  );
  r.get(
    '/organizations/:organizationReference/stores',
    { config: { access: 'operator' }, schema: { params: OrgParams, querystring: Strict(PageQuery) } },
    async (req) => o.listStores(req.params.organizationReference, req.query),
  );
  r.post(
    '/organizations/:organizationReference/stores',
    { config: { access: 'operator' }, schema: { params: OrgParams, body: CreateStore } },
    async (req) => ({
      store: await o.createStore(req.params.organizationReference, req.body),
    }),
  );
  r.patch(
    '/organizations/:organizationReference/stores/:storeReference',
    { config: { access: 'operator' }, schema: { params: OrgChildParams('storeReference'), body: UpdateStore } },
    async (req) => ({
      store: await o.updateStore(
        req.params.organizationReference,
        (req.params as Record<string, string>).storeReference,
        req.body,
      ),
    }),
  );
  r.get(
    '/organizations/:organizationReference/api-keys',
    { config: { access: 'operator' }, schema: { params: OrgParams, querystring: Strict(PageQuery) } },
    async (req) => o.listApiKeys(req.params.organizationReference, req.query),
  );
  r.post(
    '/organizations/:organizationReference/api-keys',
    { config: { access: 'operator' }, schema: { params: OrgParams, body: CreateApiKey } },
    async (req) => o.createApiKey(req.params.organizationReference, req.body),
  );
  r.post(
    '/organizations/:organizationReference/api-keys/:apiKeyReference/revoke',
    { config: { access: 'operator' }, schema: { params: OrgChildParams('apiKeyReference') } },
    async (req) => ({
      apiKey: await o.revokeApiKey(
        req.params.organizationReference,
        (req.params as Record<string, string>).apiKeyReference,
      ),
    }),
  );
}

/** The job queue (list, retry a dead job) and loading the demo data. */
function jobAndSeedRoutes(app: FastifyInstance, s: OperatorDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const JobsQuery = Strict({
    status: Type.Optional(Type.Enum(['pending', 'running', 'succeeded', 'dead'])),
    kind: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  });
  r.get('/jobs', { config: { access: 'operator' }, schema: { querystring: JobsQuery } }, async (req) => {
    const rows = await jobsRepo.list(s.db, {
      status: req.query.status,
      kind: req.query.kind,
      limit: req.query.limit ?? 50,
    });
    return {
      counts: await jobsRepo.counts(s.db),
      jobs: rows.map((j) => ({
        id: j.id,
        kind: j.kind,
        status: j.status,
        attempts: j.attempts,
        maxAttempts: j.max_attempts,
        runAt: j.run_at.toISOString(),
        lastError: j.last_error,
        created: j.created_at.toISOString(),
        payload: j.payload,
      })),
    };
  });
  r.post(
    '/jobs/:jobId/retry',
    { config: { access: 'operator' }, schema: { params: Strict({ jobId: Type.Integer({ minimum: 1 }) }) } },
    async (req) => {
      if (!(await jobsRepo.retry(s.db, req.params.jobId, s.clock.now()))) throw notFound('Dead job');
      s.worker?.nudge();
      return { retried: req.params.jobId };
    },
  );

  const SeedQuery = Strict({ rotateKeys: Type.Optional(Type.Boolean({ default: false })) });
  r.post('/seed', { config: { access: 'operator' }, schema: { querystring: SeedQuery } }, async (req) => {
    // Demo data has published passwords and keys: it never reaches a production database.
    if (s.config.env === 'production')
      throw new ApiError(
        'not_in_production',
        'Demo data is not loaded in production; create the first operator with `podctl users create-operator`',
      );
    return s.seed({ rotateKeys: req.query.rotateKeys === true });
  });
}
