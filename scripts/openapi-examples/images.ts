import { type Flow, MISSING, png } from './recorder.ts';

/** Uploads the artwork the orders and renders use; returns its image reference. */
export async function captureImages({ r }: Flow): Promise<string> {
  const artwork = await png(600, 1200, 40);
  const image = await r.send(
    'uploadImage',
    'POST',
    '/v2/images',
    { payload: artwork, headers: { 'content-type': 'application/octet-stream' } },
    200,
  );
  await r.send('uploadImage', 'POST', '/v2/images', {
    payload: Buffer.from('not an image'),
    headers: { 'content-type': 'application/octet-stream' },
  });
  const imageReference = image.data.image.reference;
  await r.send('listImages', 'GET', '/v2/images?limit=2', {}, 200);
  await r.send('listImages', 'GET', '/v2/images?limit=1000', {}, 400);
  await r.send('getImage', 'GET', `/v2/images/${imageReference}`, {}, 200);
  await r.send('getImage', 'GET', `/v2/images/${MISSING('Image')}`, {}, 404);
  return imageReference;
}
