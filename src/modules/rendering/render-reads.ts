import type { Executor } from '../../platform/db/index.ts';
import { renderReadsRepo as repo } from './render-reads-repo.ts';

/** Rendertokens charged for the renders requested in one hour (its start). */
export interface TokenHour {
  hour: Date;
  tokens: number;
}

/** A completed render of a piece of artwork. */
export interface ArtworkRender {
  renderReference: string;
  imageReference: string;
}

const artworkRender = (r: { id: string; image_id: string }): ArtworkRender => ({
  renderReference: r.id,
  imageReference: r.image_id,
});

/** What the dashboard shows of renders next to orders, claims and the week's rendertokens. */
export function renderReads(db: Executor) {
  return {
    /** Rendertokens charged per hour since `since`, oldest first. */
    rendertokensPerHour: (orgId: string, since: Date): Promise<TokenHour[]> =>
      repo.rendertokensPerHour(db, orgId, since),
    /** The newest completed render of each image that has one (mockup thumbnails beside artwork). */
    latestRenderOfEach: async (orgId: string, imageRefs: string[]): Promise<ArtworkRender[]> =>
      (await repo.latestRenders(db, orgId, imageRefs)).map(artworkRender),
    /** The newest completed renders of any of the images, newest first, at most 12. */
    rendersOfArtwork: async (orgId: string, imageRefs: string[]): Promise<ArtworkRender[]> =>
      (await repo.completedRenders(db, orgId, imageRefs)).map(artworkRender),
  };
}
