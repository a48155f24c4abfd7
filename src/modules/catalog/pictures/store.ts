import { createHash } from 'node:crypto';
import type { Clock } from '../../../platform/clock.ts';
import type { Db } from '../../../platform/db/index.ts';
import { Gate } from '../../../platform/gate.ts';
import type { BlobStore } from '../../../platform/storage.ts';
import { type PictureRow, pictureRepo } from '../repo.ts';
import { type PictureSpec, type PictureSubject, drawPicture, pictureSpecs } from './index.ts';

export type StoredPicture = PictureSpec & { row: PictureRow };

/**
 * Product pictures are drawn the first time they are asked for, not at import: several hundred
 * products times three views would make a fresh start take a minute. Each is drawn once by
 * content key, kept as a blob with a row, and remembered by the process.
 */
export function pictureStore(deps: { db: Db; blobs: BlobStore; clock: Clock }) {
  const known = new Map<string, PictureRow>();
  const pending = new Map<string, Promise<PictureRow>>();
  // Drawing is CPU work beside the API: two at a time per process, the rest wait their turn.
  const gate = new Gate(2, 10_000, 'picture drawing');

  async function draw(subject: PictureSubject, spec: PictureSpec): Promise<PictureRow> {
    const blobKey = `pictures/${spec.key}.webp`;
    // Another database on the same blob store (a test clone, a restored copy) may have drawn it already.
    let bytes = await deps.blobs.get(blobKey);
    if (!bytes) {
      bytes = await gate.run(() => drawPicture(subject, spec.view));
      await deps.blobs.put(blobKey, bytes);
    }
    const row: PictureRow = {
      key: spec.key,
      content_type: spec.contentType,
      blob_key: blobKey,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      width: spec.width,
      height: spec.height,
      created_at: deps.clock.now(),
    };
    await pictureRepo.insertPicture(deps.db, row);
    // Whoever inserted first, every process shows the same row.
    return (await pictureRepo.pictures(deps.db, [spec.key]))[0] ?? row;
  }

  /** One picture of a subject, read from the table or drawn once however many ask at the same time. */
  async function picture(subject: PictureSubject, spec: PictureSpec): Promise<PictureRow> {
    const hit = known.get(spec.key);
    if (hit) return hit;
    let p = pending.get(spec.key);
    if (!p) {
      p = (async () => (await pictureRepo.pictures(deps.db, [spec.key]))[0] ?? draw(subject, spec))().finally(() =>
        pending.delete(spec.key),
      );
      pending.set(spec.key, p);
    }
    const row = await p;
    known.set(spec.key, row);
    return row;
  }

  return {
    picture,
    /** The pictures of a subject, drawing those that are not yet. */
    async pictures(subject: PictureSubject): Promise<StoredPicture[]> {
      const specs = pictureSpecs(subject);
      const unknown = specs.filter((s) => !known.has(s.key)).map((s) => s.key);
      if (unknown.length) for (const r of await pictureRepo.pictures(deps.db, unknown)) known.set(r.key, r);
      return Promise.all(specs.map(async (s) => ({ ...s, row: await picture(subject, s) })));
    },
  };
}
