import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, PageQuery, RefParams, Strict, Type, errors } from '../../platform/http/schemas.ts';
import type { OrganizationService } from './service.ts';
import { Account, Brand, Organization, Store } from './schemas.ts';

const tags = ['Organization'];

/** Read-only organization structure: it changes only in the dashboard (and the operator API). */
export function organizationRoutes(app: FastifyInstance, s: { organization: OrganizationService }): void {
  organizationAccountRoutes(app, s);
  storeAndBrandRoutes(app, s);
}

/** The key's own check, its organization and its accounts. */
function organizationAccountRoutes(app: FastifyInstance, s: { organization: OrganizationService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.post(
    '/auth/validate',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'validateAuth',
        tags: ['Authentication'],
        summary: 'Check that the secret key is valid',
        response: { 200: Open({ message: Type.String() }), ...errors() },
      },
    },
    async (req) => ({
      message: `The key "${req.principal.keyName}" is valid for organization ${req.principal.organizationId}`,
    }),
  );

  r.get(
    '/organization',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getOrganization',
        tags,
        summary: 'The organization of the key',
        response: { 200: Open({ organization: Organization }), ...errors() },
      },
    },
    async (req) => ({ organization: await s.organization.organization(org(req)) }),
  );

  r.get(
    '/accounts',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listAccounts',
        tags,
        summary: 'Accounts (billing entities)',
        querystring: Strict(PageQuery),
        response: { 200: Page('accounts', Account), ...errors() },
      },
    },
    async (req) => s.organization.listAccounts(org(req), req.query),
  );
  r.get(
    '/accounts/:accountReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getAccount',
        tags,
        summary: 'One account',
        params: RefParams('accountReference'),
        response: { 200: Open({ account: Account }), ...errors(404) },
      },
    },
    async (req) => ({ account: await s.organization.account(org(req), req.params.accountReference) }),
  );
}

/** The organization's stores and brands. */
function storeAndBrandRoutes(app: FastifyInstance, s: { organization: OrganizationService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;
  r.get(
    '/stores',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listStores',
        tags,
        summary: 'Stores',
        querystring: Strict(PageQuery),
        response: { 200: Page('stores', Store), ...errors() },
      },
    },
    async (req) => s.organization.listStores(org(req), req.query),
  );
  r.get(
    '/stores/:storeReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getStore',
        tags,
        summary: 'One store',
        params: RefParams('storeReference'),
        response: { 200: Open({ store: Store }), ...errors(404) },
      },
    },
    async (req) => ({ store: await s.organization.store(org(req), req.params.storeReference) }),
  );

  r.get(
    '/brands',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listBrands',
        tags,
        summary: 'Brands',
        querystring: Strict(PageQuery),
        response: { 200: Page('brands', Brand), ...errors() },
      },
    },
    async (req) => s.organization.listBrands(org(req), req.query),
  );
  r.get(
    '/brands/:brandReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getBrand',
        tags,
        summary: 'One brand',
        params: RefParams('brandReference'),
        response: { 200: Open({ brand: Brand }), ...errors(404) },
      },
    },
    async (req) => ({ brand: await s.organization.brand(org(req), req.params.brandReference) }),
  );
}
