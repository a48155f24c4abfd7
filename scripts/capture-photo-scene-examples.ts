/**
 * The OpenAPI examples of photo scenes (a partner's own photo with the corners where the case
 * sits), captured from a test app: a photo uploaded, a scene made of it, listed, read and deleted,
 * and one refusal each. Merged into src/openapi/examples.json (capture-openapi-examples.ts merges
 * them too when it records every operation).
 *
 *   npx tsx scripts/capture-photo-scene-examples.ts
 */
import sharp from 'sharp';
import { ManualClock } from '../src/platform/clock.ts';
import { EXAMPLES_FILE, type OperationExamples } from '../src/openapi/examples.ts';
import { call, createTestApp } from '../test/support/app.ts';
import { MISSING, REQUEST_ID, writeExamples } from './openapi-examples/recorder.ts';

const CORNERS = {
  topLeft: { x: 612, y: 260 },
  topRight: { x: 905, y: 281 },
  bottomRight: { x: 884, y: 902 },
  bottomLeft: { x: 548, y: 874 },
};

export async function capturePhotoScenes(): Promise<Record<string, OperationExamples>> {
  const t = await createTestApp({ clock: new ManualClock(new Date('2026-12-06T09:30:00Z')) });
  const out: Record<string, OperationExamples> = {};
  const send = async (id: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => {
    const res = await call(t, method, url, { body, headers: { 'x-request-id': REQUEST_ID } });
    const entry = (out[id] ??= { responses: {} });
    if (body !== undefined && res.statusCode < 300) entry.request ??= body;
    entry.responses[String(res.statusCode)] ??= res.data;
    return res;
  };
  try {
    const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#c9b79c' } })
      .jpeg()
      .toBuffer();
    const image = await call(t, 'POST', '/v2/images', {
      payload: photo,
      headers: { 'content-type': 'application/octet-stream' },
    });
    const imageReference = image.data.image.reference;
    const made = await send('createPhotoScene', 'POST', '/v2/photo-scenes', {
      photoScene: { name: 'Shop counter', imageReference, corners: CORNERS },
    });
    await send('createPhotoScene', 'POST', '/v2/photo-scenes', {
      photoScene: {
        name: 'Shop counter',
        imageReference,
        corners: { ...CORNERS, topRight: CORNERS.bottomRight, bottomRight: CORNERS.topRight },
      },
    });
    const ref = made.data.photoScene.reference;
    await send('listPhotoScenes', 'GET', '/v2/photo-scenes?limit=2');
    await send('listPhotoScenes', 'GET', '/v2/photo-scenes?cursor=not-a-cursor');
    await send('getPhotoScene', 'GET', `/v2/photo-scenes/${ref}`);
    await send('getPhotoScene', 'GET', `/v2/photo-scenes/${MISSING('Scene')}`);
    await send('deletePhotoScene', 'DELETE', `/v2/photo-scenes/${ref}`);
    await send('deletePhotoScene', 'DELETE', `/v2/photo-scenes/${ref}`);
    return out;
  } finally {
    await t.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeExamples(await capturePhotoScenes(), true);
  console.log(`Photo scene examples merged into ${EXAMPLES_FILE}`);
}
