import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, RefParams, Strict, Type, errors } from '../../platform/http/schemas.ts';
import { formatBytes, postRawUpload, uploadTempDir } from '../../platform/http/upload.ts';
import type { Config } from '../../config.ts';
import type { ClaimsService } from './service.ts';
import {
  ClaimCreated,
  ClaimDetail,
  ClaimListItem,
  Claimcategory,
  CreateCategoryBody,
  DecideBody,
  Evidence,
  ItemIssuesBody,
  ListClaimsQuery,
  PackageMissingBody,
} from './schemas.ts';

const tags = ['Claims'];
const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

/** What the claims routes use. */
export type ClaimsRouteDeps = { claims: ClaimsService; config: Pick<Config, 'env' | 'uploadLimitBytes' | 'dataDir'> };

export function claimsRoutes(app: FastifyInstance, s: ClaimsRouteDeps): void {
  evidenceUploadRoute(app, s);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/claimcategories',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listClaimcategories',
        tags,
        summary: 'Claim categories (an open list: fetch it, do not hard-code it)',
        response: { 200: Open({ claimcategories: Type.Array(Claimcategory) }), ...errors() },
      },
    },
    async () => s.claims.categories(),
  );

  r.post(
    '/claim-package-missing',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'claimPackageMissing',
        tags,
        summary: 'Claim that a shipment never arrived',
        description:
          'Claims every shipped item of the shipment. Possible once the delivery window has passed (never earlier than two calendar days after the ship day) and within 100 days of shipping, when the shipment has no claim and its order no replacement. 0 to 3 evidence references.',
        body: PackageMissingBody,
        response: { 200: ClaimCreated, ...errors(403, 404, 409, 503) },
      },
    },
    async (req) => ({ claim: await s.claims.createPackageMissing(org(req), req.principal.keyName, req.body) }),
  );

  r.post(
    '/claim-item-issues',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'claimItemIssues',
        tags,
        summary: 'Claim damaged, defective or wrong items of a shipment',
        description:
          'Within 100 days of shipping. Per line: at most the shipped quantity minus quantities under open claims; up to 3 evidence references, at least 1 when the category requires evidence.',
        body: ItemIssuesBody,
        response: { 200: ClaimCreated, ...errors(403, 404, 409, 503) },
      },
    },
    async (req) => ({ claim: await s.claims.createItemIssues(org(req), req.principal.keyName, req.body) }),
  );

  r.get(
    '/claims',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listClaims',
        tags,
        summary: 'Open claims and claims closed recently, newest first',
        description: 'Closed claims are listed when closed after `closedAfter` (default: the last 14 days).',
        querystring: ListClaimsQuery,
        response: { 200: Page('claims', ClaimListItem), ...errors() },
      },
    },
    async (req) => s.claims.list(org(req), req.query),
  );

  r.get(
    '/claims/:claimReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getClaim',
        tags,
        summary: 'One claim with its lines, decision and evidence URLs',
        params: RefParams('claimReference'),
        response: { 200: Open({ claim: ClaimDetail }), ...errors(404) },
      },
    },
    async (req) => ({ claim: await s.claims.get(org(req), req.params.claimReference) }),
  );

  r.post(
    '/claims/:claimReference/retract',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'retractClaim',
        tags,
        summary: 'Retract a pending claim (permanent)',
        params: RefParams('claimReference'),
        response: { 204: Type.Null(), ...errors(403, 404, 409) },
      },
    },
    async (req, reply) => {
      await s.claims.retract(org(req), req.params.claimReference);
      return reply.status(204).send(null);
    },
  );

  if (s.config.env === 'test') claimsTestRoutes(app, s);
}

/** The evidence upload: a raw body, in a scope of its own. */
function evidenceUploadRoute(app: FastifyInstance, s: ClaimsRouteDeps): void {
  // The octet-stream parser stays inside this scope, so the JSON endpoints keep answering 415 to it.
  app.register(async (scope) => {
    postRawUpload(scope, {
      url: '/evidence',
      limitBytes: s.config.uploadLimitBytes,
      tempDir: uploadTempDir(s.config.dataDir),
      noun: 'Evidence files',
      access: 'write',
      bucket: 'uploads',
      schema: {
        operationId: 'uploadEvidence',
        tags,
        summary: 'Upload a JPEG or PNG evidence image for a claim',
        description: `The format is judged from the bytes. Each evidence can be used by one claim; evidence not used by a claim within 1 day is deleted. Counts to the \`uploads\` and \`default\` buckets. Limit: ${formatBytes(s.config.uploadLimitBytes)}.`,
        response: { 200: Open({ evidence: Evidence }), ...errors(403, 413, 415) },
      },
      handler: async (req, body) => ({
        evidence: await s.claims.evidence.upload(req.principal.organizationId, body),
      }),
    });
  });
}

/** The test environment's stand-in for support deciding a claim. */
function claimsTestRoutes(app: FastifyInstance, s: ClaimsRouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/test-helpers/claims/:claimReference/decide',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'testDecideClaim',
        tags: ['Test helpers'],
        summary: 'Test environment: decide a pending claim as support would',
        description:
          "Per line, replacement + refund + rejection quantities add up to the claimed quantity. A replacement creates a replacement order to the shipment's destination.",
        params: RefParams('claimReference'),
        body: DecideBody,
        response: { 204: Type.Null(), ...errors(403, 404, 409) },
      },
    },
    async (req, reply) => {
      await s.claims.decide(org(req), req.params.claimReference, req.body.decision);
      return reply.status(204).send(null);
    },
  );
}

/** Support's side: decisions in production, and the category list. */
export function claimsOperatorRoutes(app: FastifyInstance, s: ClaimsRouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/claims/:claimReference/decide',
    { config: { access: 'operator' }, schema: { params: RefParams('claimReference'), body: DecideBody } },
    async (req, reply) => {
      await s.claims.decide(null, req.params.claimReference, req.body.decision);
      return reply.status(204).send(null);
    },
  );
  r.get('/claimcategories', { config: { access: 'operator' } }, async () => s.claims.categories());
  r.post('/claimcategories', { config: { access: 'operator' }, schema: { body: CreateCategoryBody } }, async (req) => ({
    claimcategory: await s.claims.createCategory(req.body),
  }));
}

/** Evidence files at unguessable URLs, without a key (they are linked from claims). */
export function claimsPublicRoutes(app: FastifyInstance, s: ClaimsRouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/evidence-files/:file',
    { config: { access: 'public' }, schema: { hide: true, params: Strict({ file: Type.String({ maxLength: 200 }) }) } },
    async (req, reply) => {
      const f = await s.claims.evidence.file(req.params.file);
      return reply
        .header('content-type', f.contentType)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(f.bytes);
    },
  );
}
