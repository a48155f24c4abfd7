import { type Flow, MISSING } from './recorder.ts';

/** A composition with its scene and perspective, a render and a preview of the artwork, and the render's files. */
export async function captureRenders(flow: Flow, imageReference: string): Promise<void> {
  const { t, r, productReference, compositionReference } = flow;
  const composition = await r.send('getComposition', 'GET', `/v2/compositions/${compositionReference}`, {}, 200);
  await r.send('getComposition', 'GET', `/v2/compositions/${MISSING('Composition')}`, {}, 404);
  const c = composition.data.composition;
  const scenes = await r.send('listScenes', 'GET', '/v2/scenes', {}, 200);
  await r.send('listScenes', 'GET', `/v2/scenes?productgroupReference=${MISSING('Productgroup')}`);
  const sceneReference = c.sceneReference ?? scenes.data.scenes[0].reference;
  await r.send('getScene', 'GET', `/v2/scenes/${sceneReference}`, {}, 200);
  await r.send('getScene', 'GET', `/v2/scenes/${MISSING('Scene')}`, {}, 404);
  const perspectives = await r.send(
    'listPerspectives',
    'GET',
    `/v2/perspectives?sceneReference=${sceneReference}&productReference=${productReference}`,
    {},
    200,
  );
  await r.send('listPerspectives', 'GET', `/v2/perspectives?sceneReference=${MISSING('Scene')}`);
  const perspectiveReference = c.perspectiveReference ?? perspectives.data.perspectives[0].reference;
  await r.send('getPerspective', 'GET', `/v2/perspectives/${perspectiveReference}`, {}, 200);
  await r.send('getPerspective', 'GET', `/v2/perspectives/${MISSING('Perspective')}`, {}, 404);
  const lookup = (scene: string) =>
    `/v2/lookup-composition?sceneReference=${scene}&productReference=${productReference}&perspectiveReference=${perspectiveReference}`;
  await r.send('lookupComposition', 'GET', lookup(sceneReference), {}, 200);
  await r.send('lookupComposition', 'GET', lookup(MISSING('Scene')), {}, 404);
  await r.send('getRendertokens', 'GET', '/v2/rendertokens', {}, 200);
  await r.send('getRendertokens', 'GET', '/v2/rendertokens', { key: null }, 401);
  const render = await r.send(
    'createRender',
    'POST',
    '/v2/renders',
    { body: { render: { compositionReference, imageReference } } },
    200,
  );
  await r.send('createRender', 'POST', '/v2/renders', {
    body: { render: { compositionReference, imageReference: MISSING('Image') } },
  });
  const renderReference = render.data.render.reference;
  await r.send(
    'previewRender',
    'POST',
    '/v2/renders/preview',
    { body: { preview: { compositionReference, imageReference } } },
    200,
  );
  await r.send('previewRender', 'POST', '/v2/renders/preview', {
    body: { preview: { compositionReference, imageReference: MISSING('Image') } },
  });
  // Before the worker runs, the downloads answer 202 (not complete yet).
  await r.send('downloadRenderMedia', 'GET', `/v2/renders/${renderReference}/media`, {}, 202);
  await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${renderReference}/thumbnail`, {}, 202);
  await t.s.worker.drain();
  await r.send('downloadRenderMedia', 'GET', `/v2/renders/${renderReference}/media`, {}, 200);
  await r.send('downloadRenderMedia', 'GET', `/v2/renders/${MISSING('Render')}/media`, {}, 404);
  await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${renderReference}/thumbnail`, {}, 200);
  await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${MISSING('Render')}/thumbnail`, {}, 404);
  await r.send('listRenders', 'GET', '/v2/renders?limit=2', {}, 200);
  await r.send('listRenders', 'GET', '/v2/renders?status=nonsense', {}, 400);
  await r.send('getRender', 'GET', `/v2/renders/${renderReference}`, {}, 200);
  await r.send('getRender', 'GET', `/v2/renders/${MISSING('Render')}`, {}, 404);
}
