import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../platform/errors.ts';
import { color, file, fileBytes, required, text } from './forms.ts';
import { type Html, field, form, html, ownPath, safeUrl, shortRef, table } from './html.ts';
import { LOGO_MAX_BYTES, LOGO_PREFIX } from './logos.ts';
import { show, typed } from './partner-structure.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const ALL = { limit: 100 };

function httpUrl(body: unknown, name: string, label: string): string | undefined {
  const v = text(body, name, label, { max: 2000 });
  if (v !== undefined && !safeUrl(v)?.startsWith('http')) throw badRequest(`${label} must be an http(s) address`);
  return v;
}

/** Black or white text, whichever reads on the brand colour (the same rule as the preview script). */
const textOn = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255) > 150 ? '#111' : '#fff';
};

export function brandPreview(b: {
  name: string;
  logoUrl: string | null;
  primaryColor: string;
  secondaryColor: string;
  customerService: { email: string | null };
}): Html {
  const logo = ownPath(b.logoUrl, LOGO_PREFIX);
  const fg = textOn(b.primaryColor);
  return html`<div class="preview" data-preview aria-label="Preview of the tracking page" role="img">
<div class="pv-head" style="background:${b.primaryColor};color:${fg}">${logo ? html`<img src="${logo}" alt="">` : ''}<span class="pv-name">${b.name || 'Your brand'}</span></div>
<div class="pv-body" style="background:${b.secondaryColor}"><p><span class="pv-step" style="background:${b.primaryColor};color:${fg}">Shipped</span></p><p>Your order is on its way to Amsterdam, NL.</p><p class="pv-contact">${b.customerService.email ? `Questions? ${b.customerService.email}` : ''}</p></div></div>`;
}

function brandFields(
  opts: PageOptions,
  b?: {
    name: string;
    primaryColor: string;
    secondaryColor: string;
    customerService: { email: string | null; phonenumber: string | null; url: string | null };
  },
): Html {
  return html`${field({ label: 'Brand name', name: 'name', required: true, maxlength: 200, value: typed(opts, 'name', b?.name) })}
<div class="grid">${field({ label: 'Primary colour', name: 'primaryColor', type: 'color', value: typed(opts, 'primaryColor', b?.primaryColor ?? '#222222') || '#222222' })}
${field({ label: 'Secondary colour', name: 'secondaryColor', type: 'color', value: typed(opts, 'secondaryColor', b?.secondaryColor ?? '#f5f5f5') || '#f5f5f5' })}</div>
<fieldset><legend>Customer-service contact</legend><div class="grid">
${field({ label: 'E-mail', name: 'customerServiceEmail', type: 'email', maxlength: 254, value: typed(opts, 'customerServiceEmail', b?.customerService.email) })}
${field({ label: 'Phone number', name: 'customerServicePhone', maxlength: 30, value: typed(opts, 'customerServicePhone', b?.customerService.phonenumber) })}
${field({ label: 'Help page URL', name: 'customerServiceUrl', type: 'url', maxlength: 2000, value: typed(opts, 'customerServiceUrl', b?.customerService.url) })}</div></fieldset>`;
}

function brandInput(body: unknown) {
  const cs: Record<string, string> = {};
  const email = text(body, 'customerServiceEmail', 'Customer-service e-mail', { max: 254 });
  if (email !== undefined) {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest('Customer-service e-mail is not an e-mail address');
    cs.email = email;
  }
  const phone = text(body, 'customerServicePhone', 'Customer-service phone number', { max: 30 });
  if (phone !== undefined) cs.phonenumber = phone;
  const url = httpUrl(body, 'customerServiceUrl', 'Customer-service URL');
  if (url !== undefined) cs.url = url;
  return {
    name: required(body, 'name', 'Brand name'),
    primaryColor: color(body, 'primaryColor', 'Primary colour'),
    secondaryColor: color(body, 'secondaryColor', 'Secondary colour'),
    customerService: cs,
  };
}

/** The brands, adding one, one brand's page to edit it with a preview of the tracking page, and its logo. */
export function partnerBrandPages(r: DashRouter): void {
  const { s } = r;
  const o = s.organization;
  const brandsPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { brands } = await o.listBrands(ctx.orgId, ALL);
    return show(
      req,
      ctx,
      'Brands',
      html`<p>Brands style the tracking page and shipping labels.</p>
${table(
  ['Brand', 'Colours', 'Logo', 'Customer service'],
  brands.map(
    (b) => html`<tr><td><a href="/dashboard/brands/${b.reference}">${b.name}</a></td>
<td><span class="swatch" style="background:${b.primaryColor}" aria-hidden="true"></span> ${b.primaryColor} <span class="swatch" style="background:${b.secondaryColor}" aria-hidden="true"></span> ${b.secondaryColor}</td>
<td>${logoImage(b.logoUrl, `Logo of ${b.name}`, 28)}</td><td>${b.customerService.email ?? '—'}</td></tr>`,
  ),
  { caption: 'Brands', empty: 'No brands yet. Add one below to show your logo and colours on tracking pages.' },
)}
<section class="card" aria-labelledby="new-brand"><h2 id="new-brand">Add a brand</h2>
${form(
  '/dashboard/brands',
  ctx.page.csrf,
  html`<div class="grid"><div>${brandFields(opts)}<button type="submit">Create brand</button></div>
<div><h3>Tracking page preview</h3>${brandPreview({ name: typed(opts, 'name', ''), logoUrl: null, primaryColor: '#222222', secondaryColor: '#f5f5f5', customerService: { email: null } })}</div></div>`,
  { label: 'Add a brand' },
)}</section>`,
      opts,
    );
  };
  r.page('/dashboard/brands', 'partner', brandsPage);
  r.action(
    '/dashboard/brands',
    'partner',
    async (req, ctx) => {
      const b = await o.createBrand(ctx.orgId, brandInput(req.body));
      return { redirect: `/dashboard/brands/${b.reference}`, notice: `Brand ${b.name} created.` };
    },
    brandsPage,
  );

  const brandPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const b = await o.brand(ctx.orgId, (req.params as { ref: string }).ref);
    return show(
      req,
      ctx,
      `Brand ${b.name}`,
      html`<p><a href="/dashboard/brands">All brands</a></p><p>Reference ${shortRef(b.reference)}</p>
<section class="card">${form(
        `/dashboard/brands/${b.reference}`,
        ctx.page.csrf,
        html`<div class="grid"><div>${brandFields(opts, b)}<button type="submit">Save brand</button></div>
<div><h2>Tracking page preview</h2>${brandPreview(b)}</div></div>`,
        { label: 'Edit brand' },
      )}</section>
<section class="card" aria-labelledby="logo"><h2 id="logo">Logo</h2>${b.logoUrl ? html`<p>${logoImage(b.logoUrl, `Current logo of ${b.name}`, 48)}</p>` : html`<p>No logo yet.</p>`}
${form(`/dashboard/brands/${b.reference}/logo`, ctx.page.csrf, html`${field({ label: 'Logo image', name: 'logo', type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', required: true, help: 'PNG, JPEG, WebP or GIF, at most 2 MB; shown at most 512 px wide.' })}<button type="submit">Upload logo</button>`, { multipart: true, label: 'Upload logo' })}</section>`,
      opts,
    );
  };
  r.page('/dashboard/brands/:ref', 'partner', brandPage);
  r.action(
    '/dashboard/brands/:ref',
    'partner',
    async (req, ctx) => {
      const b = await o.updateBrand(ctx.orgId, (req.params as { ref: string }).ref, brandInput(req.body));
      return { redirect: `/dashboard/brands/${b.reference}`, notice: `Brand ${b.name} saved.` };
    },
    brandPage,
  );
  r.action(
    '/dashboard/brands/:ref/logo',
    'partner',
    async (req, ctx) => {
      const upload = file(req.body, 'logo');
      if (!upload) throw badRequest('Choose an image file to upload');
      const b = await s.dashboard.uploadLogo(ctx.orgId, (req.params as { ref: string }).ref, await fileBytes(upload));
      return { redirect: `/dashboard/brands/${b.reference}`, notice: 'Logo uploaded.' };
    },
    brandPage,
    { file: { field: 'logo', maxBytes: LOGO_MAX_BYTES } },
  );
}

/** A logo uploaded here is shown; one set by URL elsewhere is linked, not loaded (no request leaves). */
function logoImage(url: string | null, alt: string, height: number): Html | string {
  const own = ownPath(url, LOGO_PREFIX);
  if (own) return html`<img src="${own}" alt="${alt}" height="${height}">`;
  const external = safeUrl(url);
  return external
    ? html`<a href="${external}" rel="noreferrer">external logo</a> <span class="help">(not loaded here)</span>`
    : '—';
}
