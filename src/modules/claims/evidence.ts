import type { Clock } from '../../platform/clock.ts';
import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest } from '../../platform/errors.ts';
import type { UploadedFile } from '../../platform/http/upload-file.ts';
import { isReference, newReference, randomId } from '../../platform/ids.ts';
import { inspectImage } from '../../platform/images.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { ClaimsDeps } from './deps.ts';
import { EVIDENCE_RETENTION_DAYS, UNUSED_EVIDENCE_DAYS, addDays } from './days.ts';
import { type EvidenceRow, claimsRepo as repo } from './repo.ts';
import { MAX_EVIDENCE } from './schemas.ts';

export const EXPIRE_JOB = 'claims.evidence-expire';
export const PURGE_JOB = 'claims.evidence-purge';

const TOKEN_FILE = /^([0-9a-hjkmnp-tv-z]{32})\.(jpg|png)$/;

export type EvidenceDeps = Pick<ClaimsDeps, 'db' | 'clock' | 'blobs' | 'log'>;

const toEvidence = (e: EvidenceRow) => ({
  reference: e.id,
  format: e.format,
  size: e.size,
  created: e.created_at.toISOString(),
});

/**
 * Checks and locks the evidence a new claim names, inside its transaction. `groups` are the lists
 * of the request (one per claimline, or the claim's own), each with the field name for messages.
 */
async function claimableEvidence(
  clock: Clock,
  tx: Executor,
  orgId: string,
  groups: Array<{ field: string; refs: string[] }>,
): Promise<Map<string, EvidenceRow>> {
  const all = groups.flatMap((g) => g.refs);
  const rows = await repo.evidenceByIds(
    tx,
    orgId,
    all.filter((r) => isReference('Evidence', r)),
    true,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const expiredBefore = addDays(clock.now(), -UNUSED_EVIDENCE_DAYS);
  for (const g of groups) {
    if (g.refs.length > MAX_EVIDENCE)
      throw badRequest(
        `${g.field} lists ${g.refs.length} evidence references; at most ${MAX_EVIDENCE} are allowed`,
        'too_many_evidence_references',
      );
    for (const [i, ref] of g.refs.entries()) {
      const row = byId.get(ref);
      // Unused evidence lives one day, whether or not its deletion job has run yet.
      if (!row || (row.claim_id === null && row.created_at.getTime() <= expiredBefore.getTime())) {
        throw badRequest(
          `${g.field}[${i}] ${ref} is not evidence of this organization (unused evidence is deleted after ${UNUSED_EVIDENCE_DAYS} day)`,
          'evidence_not_found',
        );
      }
      if (row.claim_id !== null)
        throw badRequest(
          `${g.field}[${i}] ${ref} is already used by claim ${row.claim_id}; upload it again for another claim`,
          'evidence_already_used',
        );
      if (seen.has(ref))
        throw badRequest(`${g.field}[${i}] ${ref} is listed more than once in this claim`, 'evidence_already_used');
      seen.add(ref);
    }
  }
  return byId;
}

/** The file behind an evidence URL, or a 404 when unknown, deleted or purged. */
async function evidenceFile(
  deps: Pick<EvidenceDeps, 'db' | 'clock' | 'blobs'>,
  fileName: string,
): Promise<{ bytes: Buffer; contentType: string }> {
  const gone = () => new ApiError('not_found', 'Evidence file not found');
  const m = TOKEN_FILE.exec(fileName);
  if (!m) throw gone();
  const row = await repo.evidenceByToken(deps.db, m[1]);
  if (!row || (row.format === 'jpeg' ? 'jpg' : 'png') !== m[2]) throw gone();
  if (row.claim_id === null && row.created_at.getTime() <= addDays(deps.clock.now(), -UNUSED_EVIDENCE_DAYS).getTime())
    throw gone();
  if (row.claim_id !== null) {
    const claim = await repo.claim(deps.db, null, row.claim_id);
    if (
      claim?.evidence_purged_at ||
      (claim?.closed_at && addDays(claim.closed_at, EVIDENCE_RETENTION_DAYS).getTime() <= deps.clock.now().getTime())
    )
      throw gone();
  }
  const bytes = await deps.blobs.get(row.blob_key);
  if (!bytes) throw gone();
  return { bytes, contentType: row.format === 'jpeg' ? 'image/jpeg' : 'image/png' };
}

/** Evidence uploads, their use by claims, the files behind unguessable URLs, and their retention. */
export function evidenceService(deps: EvidenceDeps) {
  const { db, clock, blobs } = deps;

  async function deleteBlobs(keys: string[]) {
    for (const key of keys) {
      try {
        await blobs.delete(key);
      } catch (err) {
        deps.log?.warn({ err, key }, 'could not delete an evidence file');
      }
    }
  }

  return {
    /** The blob is written first; the row (and its expiry job) only when the file is in place. */
    async upload(orgId: string, body: UploadedFile) {
      const info = await inspectImage(body);
      const id = newReference('Evidence');
      const blobKey = `evidence/${orgId}/${id}.${info.format === 'jpeg' ? 'jpg' : 'png'}`;
      await blobs.putFile(blobKey, body.path);
      const now = clock.now();
      const row = {
        id,
        organization_id: orgId,
        format: info.format,
        size: body.size,
        blob_key: blobKey,
        token: randomId(32),
        created_at: now,
      };
      await db.tx(async (tx) => {
        await repo.insertEvidence(tx, row);
        await enqueue(
          tx,
          clock,
          EXPIRE_JOB,
          { evidenceId: id },
          {
            runAt: addDays(now, UNUSED_EVIDENCE_DAYS),
            dedupeKey: `${EXPIRE_JOB}:${id}`,
            maxAttempts: 5,
            organizationId: orgId,
          },
        );
      });
      return toEvidence({ ...row, seq: 0, claim_id: null, claim_position: null, attached_at: null });
    },

    claimable: (tx: Executor, orgId: string, groups: Array<{ field: string; refs: string[] }>) =>
      claimableEvidence(clock, tx, orgId, groups),

    attach: (tx: Executor, evidenceId: string, claimId: string, position: number | null) =>
      repo.attachEvidence(tx, evidenceId, claimId, position, clock.now()),

    /** After a decision or retraction, in its transaction: the files go about four months later. */
    schedulePurge: (tx: Executor, claim: { id: string; organization_id: string }, closedAt: Date) =>
      enqueue(
        tx,
        clock,
        PURGE_JOB,
        { claimId: claim.id },
        {
          runAt: addDays(closedAt, EVIDENCE_RETENTION_DAYS),
          dedupeKey: `${PURGE_JOB}:${claim.id}`,
          maxAttempts: 10,
          organizationId: claim.organization_id,
        },
      ),

    /** Job: evidence still unused after a day is deleted, row and file. */
    async expireUnused(evidenceId: string) {
      const key = await db.tx((tx) => repo.deleteUnattached(tx, evidenceId));
      if (key) await deleteBlobs([key]);
    },

    /** Job: a closed claim's evidence is purged; the URL lists are empty afterwards. */
    async purgeClaim(claimId: string) {
      const keys = await db.tx(async (tx) => {
        const claim = await repo.claim(tx, null, claimId, true);
        if (!claim || claim.status === 'pending' || claim.evidence_purged_at) return [];
        await repo.markPurged(tx, claimId, clock.now());
        return repo.deleteEvidenceOfClaim(tx, claimId);
      });
      await deleteBlobs(keys);
    },

    /** The file behind an evidence URL, or a 404 when unknown, deleted or purged. */
    file: (fileName: string) => evidenceFile(deps, fileName),
  };
}

export type EvidenceService = ReturnType<typeof evidenceService>;
