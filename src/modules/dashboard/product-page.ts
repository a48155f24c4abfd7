import type { FastifyRequest } from 'fastify';
import type { Colourway } from '../catalog/look.ts';
import { type Html, badge, euros, html, shortRef, statusTone } from './html.ts';
import { page } from './layout.ts';
import { productThumb } from './product-picture.ts';
import type { DashRouter } from './router.ts';

/** The fields of a product's detail (partner or operator) that its page shows. */
interface ProductFacts {
  reference: string;
  name: string;
  legacyItemSKU: string;
  status: string;
  price: number;
  colour?: Colourway | null;
  media: Array<{ filename: string; kind: string }>;
}

/** The operator's view adds who may see the product and what it is made for. */
interface OperatorFacts extends ProductFacts {
  availableQuantity: number;
  device: string | null;
  caseType: string | null;
  privateOrganizationReference: string | null;
}

const HEX = /^#[0-9a-f]{6}$/i;

/**
 * A case's colourway as text with swatches: its name, then the shell, side wall and camera rim,
 * each named with its hex code (a part without a colour of its own says it follows the shell), so
 * the colours read without seeing them.
 */
export function colourwayView(colour: Colourway | null | undefined): Html {
  if (!colour) return html`<p class="help">No colourway: the case is shown in its case type's own colour.</p>`;
  const parts = [
    { label: 'Shell', hex: colour.hex, own: true },
    { label: 'Bezel (side wall)', hex: colour.bezelHex ?? colour.hex, own: !!colour.bezelHex },
    { label: 'Camera ring', hex: colour.cameraRingHex ?? colour.hex, own: !!colour.cameraRingHex },
  ];
  return html`<p>Name: <strong>${colour.name}</strong></p>
<ul class="colourway">${parts.map(
    (p) =>
      html`<li><span class="swatch" style="background:${HEX.test(p.hex) ? p.hex : 'transparent'}" aria-hidden="true"></span> ${p.label}: <code>${p.hex.toLowerCase()}</code>${p.own ? '' : html` <span class="help">(as the shell)</span>`}</li>`,
  )}</ul>`;
}

/** A product's page body: its first picture, its facts and its colourway. */
function productBody(p: ProductFacts, base: string, back: Html, extra: Html = html``): Html {
  const first = p.media.find((m) => m.kind !== 'layer');
  return html`<p>${back}</p>
<div class="product-page">${first ? productThumb(base, { picture: { filename: first.filename, drawn: false }, drawing: false }, 240) : html`<p class="help">No picture yet.</p>`}
<div><dl class="facts"><dt>Reference</dt><dd>${shortRef(p.reference)}</dd><dt>SKU</dt><dd>${p.legacyItemSKU}</dd>
<dt>Status</dt><dd>${badge(p.status, statusTone(p.status))}</dd><dt>Price</dt><dd>${euros(p.price)}</dd>${extra}</dl>
<section aria-labelledby="cw"><h2 id="cw">Colourway</h2>${colourwayView(p.colour)}</section></div></div>`;
}

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;

/** The page of an order, as the order page's product links give it in `from`. */
const ORDER_PAGE = /^\/dashboard\/orders\/([^/?#]+)$/;

/**
 * The partner's way back from a product's page: the order it was opened from (`from`, an order
 * page of the organization's; the link is made from the order found, never from the parameter),
 * else the orders, named as such: the dashboard has no catalog.
 */
async function partnerBack(s: DashRouter['s'], orgId: string, from: unknown): Promise<Html> {
  const m = typeof from === 'string' ? ORDER_PAGE.exec(from) : null;
  const order = m ? await s.orders.find(orgId, m[1]) : null;
  return order
    ? html`<a href="/dashboard/orders/${order.reference}">Back to order ${order.legacyOrderCode}</a>`
    : html`<a href="/dashboard/orders">All orders</a>`;
}

/** A product's page in the operator console (any product) and in the partner dashboard (the ones it sees). */
export function productPages(r: DashRouter): void {
  const { s } = r;
  r.page('/console/catalog/:ref', 'operator', async (req, ctx) => {
    // The operator's view spreads the partner detail, which its type leaves open.
    const p = (await s.catalog.operatorProduct(refParam(req))) as unknown as OperatorFacts;
    const extra = html`<dt>Device</dt><dd>${p.device ?? '—'}</dd><dt>Case type</dt><dd>${p.caseType ?? '—'}</dd>
<dt>Available</dt><dd>${p.availableQuantity}</dd>${p.privateOrganizationReference ? html`<dt>Private to</dt><dd>${p.privateOrganizationReference}</dd>` : ''}`;
    return page(
      ctx.page,
      p.name,
      productBody(p, `/console/catalog/${p.reference}`, html`<a href="/console/catalog">Catalog</a>`, extra),
    );
  });
  r.page('/dashboard/products/:ref', 'partner', async (req, ctx) => {
    const p = await s.catalog.product(ctx.orgId, refParam(req));
    const back = await partnerBack(s, ctx.orgId, (req.query as { from?: unknown } | undefined)?.from);
    return page(ctx.page, p.name, productBody(p, `/dashboard/products/${p.reference}`, back));
  });
}
