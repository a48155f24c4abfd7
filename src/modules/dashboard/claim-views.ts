import { badRequest } from '../../platform/errors.ts';
import type { DashboardServices } from './router.ts';
import { checked, integer, text, value } from './forms.ts';
import { type Html, badge, field, fmtDate, form, html, ownPath, statusTone, shortRef, table } from './html.ts';

const EVIDENCE_PREFIX = '/evidence-files/';

export type ClaimDetail = Awaited<ReturnType<DashboardServices['claims']['get']>>;

/** What the partner ordered on a claimed line: the product's name, the artwork and a mockup of it. */
export interface LineContext {
  productName: string | null;
  artworkUrl: string | null;
  mockupUrl: string | null;
}
export type LineContexts = Map<string, LineContext>;
const lineKey = (orderRef: string, index: number) => `${orderRef}#${index}`;

/**
 * The product, artwork and newest mockup of every claimed line, for the review next to the evidence.
 * `urls` turns an image or render reference into a link the viewer may open (dashboard or console).
 */
export async function lineContexts(
  s: DashboardServices,
  orgId: string,
  c: ClaimDetail,
  urls: { image: (ref: string) => string; render: (ref: string) => string },
): Promise<LineContexts> {
  const out: LineContexts = new Map();
  const orderRefs = [...new Set(c.claimlines.map((l) => l.orderReference ?? c.orderReference))];
  const orders = await Promise.all(orderRefs.map((ref) => s.orders.find(orgId, ref)));
  for (const o of orders) {
    if (!o) continue;
    for (const l of o.orderlines) {
      const claimed = c.claimlines.some(
        (x) => (x.orderReference ?? c.orderReference) === o.reference && x.orderlineIndex === l.index,
      );
      if (!claimed) continue;
      const product = (await s.catalog.productCards(orgId, [l.productReference])).get(l.productReference);
      const [render] = l.imageReference ? await s.rendering.rendersOfArtwork(orgId, [l.imageReference]) : [];
      out.set(lineKey(o.reference, l.index), {
        productName: product?.name ?? null,
        artworkUrl: l.imageReference ? urls.image(l.imageReference) : null,
        mockupUrl: render ? urls.render(render.renderReference) : null,
      });
    }
  }
  return out;
}
type Decision = Parameters<DashboardServices['claims']['decide']>[2];

/** The claim with its lines, evidence images and decisions (partner and operator alike). */
export function claimView(c: ClaimDetail, orderLink: (ref: string) => string, lines: LineContexts = new Map()): Html {
  const images = (urls: string[]) =>
    urls.length
      ? html`<div class="thumbs">${urls.map((u, i) => (ownPath(u, EVIDENCE_PREFIX) ? html`<figure><a href="${ownPath(u, EVIDENCE_PREFIX)}"><img src="${ownPath(u, EVIDENCE_PREFIX)}" alt="Evidence image ${i + 1}" loading="lazy"></a></figure>` : ''))}</div>`
      : html`<span class="help">no images</span>`;
  return html`<dl class="facts"><dt>Reference</dt><dd>${shortRef(c.reference)}</dd><dt>Status</dt><dd>${badge(c.status, statusTone(c.status))}</dd>
<dt>Order</dt><dd>${shortRef(c.orderReference, { href: orderLink(c.orderReference) })}</dd><dt>Shipment</dt><dd>${shortRef(c.shipmentReference)}</dd>
<dt>Filed</dt><dd>${fmtDate(c.created)}</dd>${c.comment ? html`<dt>Comment</dt><dd>${c.comment}</dd>` : ''}
${c.decision ? html`<dt>Decided</dt><dd>${fmtDate(c.decision.decided)}${c.decision.refundShippingCosts ? ' · shipping costs refunded' : ''}</dd><dt>Decision comment</dt><dd>${c.decision.comment || '—'}</dd>` : ''}
${c.replacementOrderReferences.length ? html`<dt>Replacement orders</dt><dd>${c.replacementOrderReferences.map((r) => html`${shortRef(r, { href: orderLink(r) })} `)}</dd>` : ''}</dl>
${c.evidenceUrls.length ? html`<h2>Evidence</h2>${images(c.evidenceUrls)}` : ''}
<h2>Claimed lines</h2>${table(
    ['Line', 'Category', 'Quantity', 'Ordered: artwork and mockup', 'Evidence', 'Decision'],
    c.claimlines.map((l) => {
      const ctx = lines.get(lineKey(l.orderReference ?? c.orderReference, l.orderlineIndex));
      const pic = (u: string | null | undefined, alt: string) =>
        u
          ? html`<figure><a href="${u}"><img src="${u}" alt="${alt}" loading="lazy"></a><figcaption>${alt.split(' ')[0]}</figcaption></figure>`
          : '';
      const ordered =
        ctx?.artworkUrl || ctx?.mockupUrl
          ? html`<div class="thumbs">${pic(ctx.artworkUrl, `Artwork of line ${l.orderlineIndex}`)}${pic(ctx.mockupUrl, `Mockup of line ${l.orderlineIndex}`)}</div>`
          : html`<span class="help">no artwork</span>`;
      return html`<tr><td>${l.orderlineIndex}${ctx?.productName ? html`<br>${ctx.productName}` : ''}<br><span class="help">${shortRef(l.productReference)}</span></td><td>${l.claimcategory.name}</td><td>${l.quantity}</td>
<td>${ordered}</td><td>${images(l.evidenceUrls)}</td><td>${l.decision ? html`replace ${l.decision.replacementQuantity}, refund ${l.decision.refundQuantity}, reject ${l.decision.rejectionQuantity}${l.decision.comment ? html`<br>${l.decision.comment}` : ''}` : 'pending'}</td></tr>`;
    }),
    { caption: 'Claimed lines' },
  )}`;
}

/** Quantities per line; the status follows from them (anything awarded resolves the claim). */
export function decisionForm(c: ClaimDetail, action: string, csrf: string): Html {
  return form(
    action,
    csrf,
    html`${c.claimlines.map(
      (
        l,
        i,
      ) => html`<fieldset><legend>Line ${l.orderlineIndex}: ${l.quantity} claimed (${l.claimcategory.name})</legend>
<input type="hidden" name="line.${i}.orderlineIndex" value="${l.orderlineIndex}"><input type="hidden" name="line.${i}.orderReference" value="${l.orderReference}">
<div class="grid">${field({ label: 'Replace', name: `line.${i}.replacementQuantity`, type: 'number', min: 0, max: l.quantity, value: 0, required: true })}
${field({ label: 'Refund', name: `line.${i}.refundQuantity`, type: 'number', min: 0, max: l.quantity, value: 0, required: true })}
${field({ label: 'Reject', name: `line.${i}.rejectionQuantity`, type: 'number', min: 0, max: l.quantity, value: l.quantity, required: true })}</div>
${field({ label: 'Comment on this line', name: `line.${i}.comment`, maxlength: 1000 })}</fieldset>`,
    )}
<div class="field check"><input type="checkbox" id="refund-shipping" name="refundShippingCosts" value="on"><label for="refund-shipping">Refund shipping costs</label></div>
${field({ label: 'Comment to the partner', name: 'comment', maxlength: 1000 })}
<button type="submit">Decide claim</button>`,
    { label: 'Decide the claim' },
  );
}

export function decisionFrom(body: unknown, c: ClaimDetail): Decision {
  const claimlines = c.claimlines.map((_l, i) => {
    const line = `Line ${value(body, `line.${i}.orderlineIndex`) ?? i + 1}`;
    const orderlineIndex = integer(body, `line.${i}.orderlineIndex`, `${line}: index`, { min: 1, required: true })!;
    const orderReference = text(body, `line.${i}.orderReference`, `${line}: order`);
    return {
      orderlineIndex,
      ...(orderReference ? { orderReference } : {}),
      replacementQuantity: integer(body, `line.${i}.replacementQuantity`, `${line}: replace`, {
        min: 0,
        max: 100000,
        required: true,
      })!,
      refundQuantity: integer(body, `line.${i}.refundQuantity`, `${line}: refund`, {
        min: 0,
        max: 100000,
        required: true,
      })!,
      rejectionQuantity: integer(body, `line.${i}.rejectionQuantity`, `${line}: reject`, {
        min: 0,
        max: 100000,
        required: true,
      })!,
      comment: text(body, `line.${i}.comment`, `${line}: comment`, { max: 1000 }) ?? '',
    };
  });
  if (claimlines.length === 0) throw badRequest('The claim has no lines to decide');
  const awarded = claimlines.some((l) => l.replacementQuantity > 0 || l.refundQuantity > 0);
  return {
    status: awarded ? 'resolved' : 'rejected',
    refundShippingCosts: checked(body, 'refundShippingCosts'),
    comment: text(body, 'comment', 'Comment', { max: 1000 }) ?? '',
    claimlines,
  };
}
