import { badRequest } from '../../platform/errors.ts';
import type { Services } from '../../services.ts';
import { checked, integer, text, value } from './forms.ts';
import { type Html, badge, field, fmtDate, form, html, safeUrl, statusTone, table } from './html.ts';

export type ClaimDetail = Awaited<ReturnType<Services['claims']['get']>>;
type Decision = Parameters<Services['claims']['decide']>[2];

/** The claim with its lines, evidence images and decisions (partner and operator alike). */
export function claimView(c: ClaimDetail, orderLink: (ref: string) => string): Html {
  const images = (urls: string[]) =>
    urls.length
      ? html`<div class="thumbs">${urls.map((u, i) => (safeUrl(u) ? html`<figure><a href="${safeUrl(u)}"><img src="${safeUrl(u)}" alt="Evidence image ${i + 1}" loading="lazy"></a></figure>` : ''))}</div>`
      : html`<span class="help">no images</span>`;
  return html`<dl class="facts"><dt>Reference</dt><dd class="ref"><code>${c.reference}</code></dd><dt>Status</dt><dd>${badge(c.status, statusTone(c.status))}</dd>
<dt>Order</dt><dd class="ref"><a href="${orderLink(c.orderReference)}">${c.orderReference}</a></dd><dt>Shipment</dt><dd class="ref">${c.shipmentReference}</dd>
<dt>Filed</dt><dd>${fmtDate(c.created)}</dd>${c.comment ? html`<dt>Comment</dt><dd>${c.comment}</dd>` : ''}
${c.decision ? html`<dt>Decided</dt><dd>${fmtDate(c.decision.decided)}${c.decision.refundShippingCosts ? ' · shipping costs refunded' : ''}</dd><dt>Decision comment</dt><dd>${c.decision.comment || '—'}</dd>` : ''}
${c.replacementOrderReferences.length ? html`<dt>Replacement orders</dt><dd>${c.replacementOrderReferences.map((r) => html`<a class="ref" href="${orderLink(r)}">${r}</a> `)}</dd>` : ''}</dl>
${c.evidenceUrls.length ? html`<h2>Evidence</h2>${images(c.evidenceUrls)}` : ''}
<h2>Claimed lines</h2>${table(
    ['Line', 'Category', 'Quantity', 'Evidence', 'Decision'],
    c.claimlines.map(
      (
        l,
      ) => html`<tr><td>${l.orderlineIndex}<br><span class="help ref">${l.productReference}</span></td><td>${l.claimcategory.name}</td><td>${l.quantity}</td>
<td>${images(l.evidenceUrls)}</td><td>${l.decision ? html`replace ${l.decision.replacementQuantity}, refund ${l.decision.refundQuantity}, reject ${l.decision.rejectionQuantity}${l.decision.comment ? html`<br>${l.decision.comment}` : ''}` : 'pending'}</td></tr>`,
    ),
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
