import type { FastifyRequest } from 'fastify';
import sharp from 'sharp';
import { badRequest, mustFind } from '../../platform/errors.ts';
import { formatBytes } from '../../platform/http/upload.ts';
import type { UploadedFile } from '../../platform/http/upload-file.ts';
import { file, required, value } from './forms.ts';
import { type Html, buttonForm, field, fmtDate, form, html, select, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

/** A partner's own photos as scenes: mark where the case sits by dragging four corners. */

/** Each corner: its field names' stem, its legend, and what its x and y fields are called. */
const CORNERS = [
  ['topLeft', 'Top left (camera side)', 'Top left'],
  ['topRight', 'Top right', 'Top right'],
  ['bottomRight', 'Bottom right', 'Bottom right'],
  ['bottomLeft', 'Bottom left', 'Bottom left'],
] as const;
type CornerName = (typeof CORNERS)[number][0];
type NamedCorners = Record<CornerName, { x: number; y: number }>;
const MIN_EDGE = 1000;
/** The photo as the page shows it: never larger than this on its long edge. */
const SHOWN_EDGE = 1600;

/*
 * The photo is never taller than most of the screen (--tall), so at desktop width the whole photo
 * and the corner fields beside it are in view together; its box keeps the photo's ratio, which the
 * handles' percentages rely on, before the image has loaded too. Touch panning stops only on a
 * handle, so a phone still scrolls over the photo.
 */
const STYLE = html`<style>
.corner-editor,.scene-preview{--tall:min(75vh,720px);width:min(100%,calc(var(--tall) * var(--ratio)));aspect-ratio:var(--ratio)}
.corner-editor{position:relative;user-select:none;line-height:0}
.corner-editor img{width:100%;height:100%;display:block;border-radius:8px;image-orientation:none}
.corner-editor svg{position:absolute;inset:0;width:100%;height:100%;pointer-events:none}
.corner-editor polygon{fill:rgba(11,87,208,.18);stroke:#fff;stroke-width:3;vector-effect:non-scaling-stroke;paint-order:stroke}
.corner-editor .handle{position:absolute;width:44px;height:44px;margin:-22px 0 0 -22px;border-radius:50%;border:3px solid #fff;background:rgba(11,87,208,.85);box-shadow:0 1px 4px rgba(0,0,0,.5);cursor:grab;padding:0;color:#fff;font:700 13px/38px system-ui,sans-serif;text-align:center;touch-action:none;min-height:0}
.corner-editor .handle:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.scene-editor{display:grid;gap:1rem 1.5rem;align-items:start;margin:0 0 1rem}
.scene-side{min-width:0}.scene-side>.field{margin:0 0 .75rem}.scene-side>.help{margin:.5rem 0 .75rem}
.corners{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.5rem 1rem}
.corners fieldset{margin:0;padding:.35rem .75rem .6rem;display:grid;grid-template-columns:1fr 1fr;gap:.75rem;min-width:0}
.corners legend{white-space:nowrap}.corners .field{min-width:0;margin:0}.corners input{width:100%;min-width:0}
@media (min-width:900px){.scene-editor{display:flex}.scene-editor>.corner-editor{flex:0 1 auto;min-width:0}.scene-side{flex:0 0 17rem;position:sticky;top:1rem}.scene-side .corners{grid-template-columns:1fr}}
.scene-form .field{min-width:0;max-width:100%}.scene-form select{max-width:100%}
.scene-preview{display:block;height:auto;border-radius:8px;border:1px solid var(--line)}
</style>`;

/** A phone-shaped box in the middle of the photo, to start from. */
function startCorners(w: number, h: number): NamedCorners {
  const bh = h * 0.5;
  const bw = Math.min(w * 0.6, bh / 2.05);
  const x0 = Math.round((w - bw) / 2);
  const y0 = Math.round((h - bh) / 2);
  const x1 = Math.round(x0 + bw);
  const y1 = Math.round(y0 + bh);
  return {
    topLeft: { x: x0, y: y0 },
    topRight: { x: x1, y: y0 },
    bottomRight: { x: x1, y: y1 },
    bottomLeft: { x: x0, y: y1 },
  };
}

/** Width over height, for the `--ratio` of the photo and preview boxes. */
const ratio = (w: number, h: number) => (w / h).toFixed(5);

/** The photo with the marked quadrilateral; with `handles`, four buttons the script lets one drag. */
function photoWithCorners(imageRef: string, w: number, h: number, c: NamedCorners, handles: boolean): Html {
  const pts = CORNERS.map(([k]) => `${c[k].x},${c[k].y}`).join(' ');
  const pct = (v: number, of: number) => `${((v / of) * 100).toFixed(3)}%`;
  return html`<div class="corner-editor" data-width="${w}" data-height="${h}" style="--ratio:${ratio(w, h)}"><img src="/dashboard/images/${imageRef}/photo" alt="The photo, with the case's corners marked" width="${w}" height="${h}">
<svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" aria-hidden="true"><polygon points="${pts}"/></svg>
${handles ? CORNERS.map(([k, label], i) => html`<button type="button" class="handle" data-corner="${k}" aria-label="${String(i + 1)} ${label} corner: drag, or use the arrow keys" style="left:${pct(c[k].x, w)};top:${pct(c[k].y, h)}">${String(i + 1)}</button>`) : ''}</div>`;
}

/**
 * One coordinate of a corner: shown as "x" or "y" under its corner's legend, named in full for a
 * screen reader or voice control, which may reach a field without its group ("Top left x").
 */
function cornerField(k: CornerName, corner: string, axis: 'x' | 'y', value: number): Html {
  return field({
    label: html`<span class="sr-only">${corner} </span>${axis}`,
    name: `${k}${axis.toUpperCase()}`,
    type: 'number',
    value: String(value),
    required: true,
    attrs: html` step="any" data-corner="${k}" data-axis="${axis}"`,
  });
}

function cornersFrom(body: unknown): NamedCorners {
  const out = {} as NamedCorners;
  for (const [k, label] of CORNERS) {
    const num = (axis: 'x' | 'y') => {
      const raw = required(body, `${k}${axis.toUpperCase()}`, `${label} ${axis}`, 20);
      const n = Number(raw);
      if (!Number.isFinite(n)) throw badRequest(`${label} ${axis} must be a number of pixels`);
      return n;
    };
    out[k] = { x: num('x'), y: num('y') };
  }
  return out;
}

export function partnerScenePages(r: DashRouter): void {
  const { s } = r;
  const photos = s.rendering.photoScenes;
  const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;
  const q = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | undefined>;

  r.app.get('/dashboard/scenes/corners.js', { config: { access: 'public' } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(CORNERS_JS),
  );
  // The photo at a size a page shows, as stored (no EXIF turn: the corners are in its pixels).
  r.app.get(
    '/dashboard/images/:ref/photo',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) => {
      const handle = await s.images.imageForOrganization(req.dashboardSession!.user.organization_id!, refParam(req));
      const bytes = mustFind(handle ? await s.images.readImage(handle.blobKey) : null, 'Image');
      const shown = await sharp(bytes, { limitInputPixels: 7000 * 7000, autoOrient: false })
        .resize(SHOWN_EDGE, SHOWN_EDGE, { fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 85 })
        .toBuffer();
      return reply.type('image/jpeg').header('cache-control', 'private, max-age=3600').send(shown);
    },
  );

  const listPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const [{ photoScenes }, { images }] = await Promise.all([
      photos.list(ctx.orgId, { limit: 100 }),
      s.images.list(ctx.orgId, { limit: 50 }),
    ]);
    const usable = images.filter((i) => Math.max(i.width, i.height) >= MIN_EDGE);
    const rows = photoScenes.map(
      (p) =>
        html`<tr><td><a href="/dashboard/scenes/${p.reference}">${p.name}</a></td><td><img src="/dashboard/images/${p.imageReference}/thumbnail" alt="" width="80" loading="lazy" class="thumb"></td><td>${p.photo.widthPx} × ${p.photo.heightPx}</td><td>${fmtDate(p.created)}</td></tr>`,
    );
    return page(
      ctx.page,
      'Photo scenes',
      html`${STYLE}<p>Your own photos as mockup scenes: a desk, a hand, your shop counter. Mark where the phone's back sits and every case in the catalog can be rendered there, lit by the photo's own light. Only your organization sees them; use them like any scene (<code>GET /v2/scenes</code>, <code>lookup-composition</code>, renders and previews).</p>
${table(['Scene', 'Photo', 'Size (px)', 'Made'], rows, { caption: 'Photo scenes', empty: 'No photo scene yet.' })}
<h2>Make a scene from a photo</h2>
${uploadForm(ctx.page.csrf, s.config.uploadLimitBytes)}
${usable.length ? html`<h3>Or use a photo you have uploaded</h3><div class="thumbs">${usable.map((i) => html`<figure><a href="/dashboard/scenes/new?image=${i.reference}"><img src="/dashboard/images/${i.reference}/thumbnail" alt="Photo ${i.reference}, ${i.width} by ${i.height} px" loading="lazy"></a><figcaption><a href="/dashboard/scenes/new?image=${i.reference}">Use this photo</a><br>${i.width} × ${i.height}</figcaption></figure>`)}</div>` : html`<p class="empty">No photo of at least ${MIN_EDGE} px on its long edge yet: upload one above, or with <code>POST /v2/images</code>.</p>`}`,
      opts,
    );
  };
  r.page('/dashboard/scenes', 'partner', listPage);
  r.action(
    '/dashboard/scenes/photo',
    'partner',
    async (req, ctx) => {
      const image = await uploadPhoto(s, ctx.orgId, file(req.body, 'photo')?.upload);
      return {
        redirect: `/dashboard/scenes/new?image=${image.reference}`,
        notice: 'Photo uploaded: mark where the case sits.',
      };
    },
    listPage,
    { file: { field: 'photo', maxBytes: s.config.uploadLimitBytes } },
  );

  const newPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const imageRef = (opts.values ? value(opts.values, 'image') : q(req).image) ?? '';
    const image = mustFind(await s.images.imageForOrganization(ctx.orgId, imageRef), 'Image', imageRef);
    const given = opts.values
      ? (() => {
          try {
            return cornersFrom(opts.values);
          } catch {
            return null;
          }
        })()
      : null;
    const c = given ?? startCorners(image.width, image.height);
    const name = opts.values ? (value(opts.values, 'name') ?? '') : '';
    return page(
      ctx.page,
      'Mark where the case sits',
      html`${STYLE}<p>Drag the four numbered corners onto where the phone's back lies in the photo: 1 is the top left seen from behind, where the camera is, then clockwise. Each case is fitted to these corners, in their perspective.</p>
${form(
  '/dashboard/scenes',
  ctx.page.csrf,
  html`<input type="hidden" name="image" value="${image.reference}">
<div class="scene-editor">${photoWithCorners(image.reference, image.width, image.height, c, true)}
<div class="scene-side">${field({ label: 'Scene name', name: 'name', required: true, maxlength: 100, value: name, help: 'For example: Shop counter' })}
<div class="corners">${CORNERS.map(([k, label, short]) => html`<fieldset><legend>${label}</legend>${(['x', 'y'] as const).map((axis) => cornerField(k, short, axis, c[k][axis]))}</fieldset>`)}</div>
<p class="help">Pixels of the photo as uploaded (${image.width} × ${image.height}), from its top left.</p>
<button class="btn">Make the scene</button></div></div>`,
  { label: 'Make a photo scene' },
)}
<script src="/dashboard/scenes/corners.js" defer></script>`,
      opts,
    );
  };
  r.page('/dashboard/scenes/new', 'partner', newPage);
  r.action(
    '/dashboard/scenes',
    'partner',
    async (req, ctx) => {
      const scene = await photos.create(ctx.orgId, {
        name: required(req.body, 'name', 'Scene name', 100),
        imageReference: required(req.body, 'image', 'Photo'),
        corners: cornersFrom(req.body),
      });
      return { redirect: `/dashboard/scenes/${scene.reference}`, notice: `Scene ${scene.name} made.` };
    },
    newPage,
  );

  scenePages(r);
}

/** The photo upload of the scenes page: the same file types and limit as `POST /v2/images`. */
function uploadForm(csrf: string, limit: number): Html {
  return form(
    '/dashboard/scenes/photo',
    csrf,
    html`${field({ label: 'Photo', name: 'photo', type: 'file', accept: 'image/jpeg,image/png', required: true, help: `JPEG or PNG, at least ${MIN_EDGE} px on its long edge, at most ${formatBytes(limit)}. It is stored with your images; its corners are marked next.` })}<button type="submit" class="btn">Upload the photo</button>`,
    { multipart: true, label: 'Upload a photo', className: 'card' },
  );
}

/**
 * Stores a photo uploaded on the scenes page as `POST /v2/images` would (same checks, same limit),
 * refusing before anything is stored one too large or too small to make a scene of.
 */
/**
 * The photo as it arrived, on disk: its size is checked from the header alone, then it is stored by
 * the same use case as `POST /v2/images`. Its decode is within the upload memory budget the form
 * took when it was admitted (`admitFileForm`), as the API's uploads are.
 */
async function uploadPhoto(s: DashRouter['s'], orgId: string, body: UploadedFile | undefined) {
  if (!body) throw badRequest('Choose a photo to upload');
  const meta = await sharp(body.path, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  const edge = Math.max(meta?.width ?? 0, meta?.height ?? 0);
  if (meta && edge < MIN_EDGE)
    throw badRequest(
      `The photo is ${meta.width} × ${meta.height} px; a photo scene needs at least ${MIN_EDGE} px on its long edge`,
      'photo_scene_photo_too_small',
    );
  // What is not a JPEG or PNG is refused by the upload itself (400 invalid_image), as through the API.
  return s.images.upload(orgId, body);
}

/** One scene: the photo with its corners, a preview of a case in it, and deleting it. */
function scenePages(r: DashRouter): void {
  const { s } = r;
  const photos = s.rendering.photoScenes;
  const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;
  const q = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | undefined>;
  r.page('/dashboard/scenes/:ref', 'partner', async (req, ctx) => {
    const scene = await photos.get(ctx.orgId, refParam(req));
    const [products, { images }] = await Promise.all([
      s.catalog.productSummaries(ctx.orgId),
      s.images.list(ctx.orgId, { limit: 50 }),
    ]);
    const printable = products.filter((p) => p.printable && p.status === 'launched');
    const shapes = await s.catalog.productShapes(printable.map((p) => p.reference));
    const cases = printable.filter((p) => shapes.get(p.reference)?.device && shapes.get(p.reference)?.caseType);
    const artworks = images.filter((i) => i.reference !== scene.imageReference);
    const product = q(req).product ?? cases[0]?.reference ?? '';
    const artwork = q(req).image ?? artworks[0]?.reference ?? '';
    const w = scene.photo.widthPx;
    const h = scene.photo.heightPx;
    return page(
      ctx.page,
      scene.name,
      html`${STYLE}${photoWithCorners(scene.imageReference, w, h, scene.corners, false)}
<p>Photo ${w} × ${h} px · made ${fmtDate(scene.created)} · scene <code>${scene.reference}</code> · perspectives ${scene.perspectives.map((p) => html`<code>${p.reference}</code> (${p.output.widthPx} × ${p.output.heightPx} ${p.output.format}) `)}</p>
<h2>Preview</h2>
<form method="get" class="filters card scene-form" aria-label="Preview a case in this scene">
${select({ label: 'Case', name: 'product', value: product, options: cases.map((p) => ({ value: p.reference, label: p.name })) })}
${select({ label: 'Artwork', name: 'image', value: artwork, options: artworks.map((i) => ({ value: i.reference, label: `Uploaded ${fmtDate(i.created)}, ${i.width} × ${i.height}` })) })}
<button type="submit" class="btn secondary">Show</button></form>
${product && artwork ? html`<img class="scene-preview" style="--ratio:${ratio(scene.perspectives[0].output.widthPx, scene.perspectives[0].output.heightPx)}" src="/dashboard/scenes/${scene.reference}/preview?product=${product}&image=${artwork}" alt="Preview: the chosen case with the artwork in this scene" width="${scene.perspectives[0].output.widthPx}" height="${scene.perspectives[0].output.heightPx}">` : html`<p class="empty">Upload an artwork to preview a case in this scene.</p>`}
<h2>Delete</h2><p>A deleted scene can no longer be looked up or rendered; renders already made stay.</p>
${buttonForm(`/dashboard/scenes/${scene.reference}/delete`, ctx.page.csrf, 'Delete this scene', { danger: true, confirm: 'Delete this scene?' })}`,
    );
  });
  // A preview (no rendertokens) of a case with an artwork in the scene, at the scene's 1000 px size.
  r.app.get(
    '/dashboard/scenes/:ref/preview',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) => {
      const orgId = req.dashboardSession!.user.organization_id!;
      const scene = await photos.get(orgId, refParam(req));
      const composition = await s.rendering.lookupComposition(orgId, {
        sceneReference: scene.reference,
        productReference: q(req).product ?? '',
        perspectiveReference: scene.perspectives[0].reference,
      });
      const p = await s.rendering.preview(
        orgId,
        { compositionReference: composition.reference, imageReference: q(req).image ?? '' },
        MIN_EDGE,
      );
      return reply.type(p.mimeType).header('cache-control', 'no-store').send(p.bytes);
    },
  );
  r.action('/dashboard/scenes/:ref/delete', 'partner', async (req, ctx) => {
    await photos.remove(ctx.orgId, refParam(req));
    return { redirect: '/dashboard/scenes', notice: 'Scene deleted.' };
  });
}

/** Drags the corner handles (mouse, touch, pen; arrow keys move a focused one) and keeps the fields in step. */
const CORNERS_JS = `(() => {
  const box = document.querySelector('.corner-editor');
  if (!box) return;
  const W = Number(box.dataset.width), H = Number(box.dataset.height);
  const poly = box.querySelector('polygon');
  const order = ['topLeft', 'topRight', 'bottomRight', 'bottomLeft'];
  const input = (k, axis) => document.querySelector('input[data-corner="' + k + '"][data-axis="' + axis + '"]');
  const at = (k) => ({ x: Number(input(k, 'x').value), y: Number(input(k, 'y').value) });
  const draw = () => {
    poly.setAttribute('points', order.map((k) => { const p = at(k); return p.x + ',' + p.y; }).join(' '));
    for (const h of box.querySelectorAll('.handle')) {
      const p = at(h.dataset.corner);
      h.style.left = (p.x / W) * 100 + '%';
      h.style.top = (p.y / H) * 100 + '%';
    }
  };
  const set = (k, x, y) => {
    input(k, 'x').value = String(Math.round(Math.min(W, Math.max(0, x))));
    input(k, 'y').value = String(Math.round(Math.min(H, Math.max(0, y))));
    draw();
  };
  for (const h of box.querySelectorAll('.handle')) {
    h.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      h.setPointerCapture(e.pointerId);
      const move = (ev) => {
        const r = box.getBoundingClientRect();
        set(h.dataset.corner, ((ev.clientX - r.left) / r.width) * W, ((ev.clientY - r.top) / r.height) * H);
      };
      const up = () => { h.removeEventListener('pointermove', move); h.removeEventListener('pointerup', up); };
      h.addEventListener('pointermove', move);
      h.addEventListener('pointerup', up);
    });
    h.addEventListener('keydown', (e) => {
      const step = e.shiftKey ? 10 : 1;
      const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[e.key];
      if (!d) return;
      e.preventDefault();
      const p = at(h.dataset.corner);
      set(h.dataset.corner, p.x + d[0], p.y + d[1]);
    });
  }
  for (const k of order) for (const a of ['x', 'y']) input(k, a).addEventListener('input', draw);
})();
`;
