import type { DashboardServices } from './router.ts';
import { type Html, badge, euros, fmtDate, html, safeUrl, shortRef, table } from './html.ts';
import { orderTimeline, timelineHtml } from './order-timeline.ts';
import { productThumb } from './product-picture.ts';

type Order = Awaited<ReturnType<DashboardServices['orders']['get']>>;
type Shipment = Awaited<ReturnType<DashboardServices['shipments']['get']>>;

/** The product, artwork, address, shipment and history sections of a partner's order page. */
export async function orderSections(
  s: DashboardServices,
  orgId: string,
  o: Order,
  shipment: Shipment | null,
): Promise<Html> {
  const productRefs = [...new Set(o.orderlines.map((l) => l.productReference))];
  const products = await s.catalog.productCards(orgId, productRefs);
  const imageIds = [...new Set(o.orderlines.map((l) => l.imageReference).filter((x): x is string => !!x))];
  const [events, callbackJobs, callbackAttempts, renders, address] = await Promise.all([
    s.webhooks.orderEvents(orgId, o.reference),
    s.orders.callbackJobs(o.reference),
    s.orders.callbackAttempts(orgId, o.reference),
    s.rendering.rendersOfArtwork(orgId, imageIds),
    o.dropshipAddressReference ? s.orders.findAddress(orgId, o.dropshipAddressReference) : null,
  ]);

  const lines = table(
    ['#', 'Product', 'Artwork', 'Quantity', 'Canceled', 'Shipped'],
    o.orderlines.map((l) => {
      const p = products.get(l.productReference);
      // The product's page leads back to this order.
      const productPage = `/dashboard/products/${l.productReference}?from=${encodeURIComponent(`/dashboard/orders/${o.reference}`)}`;
      return html`<tr><td>${l.index}</td><td><div class="product-cell">${
        p ? productThumb(`/dashboard/products/${l.productReference}`, p, 56) : ''
      }<span>${p ? html`<a href="${productPage}">${p.name}</a>` : l.productReference}<br><span class="help">${euros(p?.price ?? 0)} each</span></span></div></td>
<td>${l.imageReference ? html`<a href="/dashboard/images/${l.imageReference}/thumbnail"><img src="/dashboard/images/${l.imageReference}/thumbnail" alt="Artwork of line ${l.index}" width="56" height="56" loading="lazy" class="thumb"></a>` : '—'}</td>
<td>${l.quantity}</td><td>${l.canceledQuantity}</td><td>${l.shippedQuantity}</td></tr>`;
    }),
    { caption: 'Order lines' },
  );
  const renderStrip = renders.length
    ? html`<h2>Renders of the artwork</h2><div class="thumbs">${renders.map((x) => html`<figure><img src="/dashboard/renders/${x.renderReference}/thumbnail" alt="Render ${x.renderReference}" loading="lazy"><figcaption><a href="/dashboard/renders?reference=${x.renderReference}">${x.renderReference}</a></figcaption></figure>`)}</div>`
    : '';

  const addr = address as Record<string, string | null> | null;
  const addressBlock =
    o.shippingKind === 'dropship'
      ? html`<section class="card" aria-labelledby="addr"><h2 id="addr">Dropship address</h2>${
          addr
            ? html`<address>${[
                addr.company,
                [addr.firstname, addr.lastname].filter(Boolean).join(' '),
                `${addr.streetname ?? ''} ${addr.housenumber ?? ''}${addr.housenumberAddition ?? ''}`.trim(),
                addr.additionalInfo,
                `${addr.zipcode ?? ''} ${addr.city ?? ''}`.trim(),
                addr.state,
                addr.countryCode,
                addr.email,
                addr.phonenumber,
              ]
                .filter(Boolean)
                .map((x) => html`${x}<br>`)}</address>`
            : html`<p class="empty">The address is no longer available.</p>`
        }</section>`
      : html`<p>Shipped combined to the store's address.</p>`;

  const tracking = safeUrl(shipment?.trackingUrl);
  const shipmentBlock = shipment
    ? html`<dl class="facts"><dt>Reference</dt><dd>${shortRef(shipment.reference)}</dd><dt>Level</dt><dd>${shipment.level}</dd><dt>Shipped</dt><dd>${fmtDate(shipment.shipped)}</dd>
${shipment.carrier ? html`<dt>Carrier</dt><dd>${shipment.carrier} ${shipment.trackingNumber ?? ''}</dd>` : ''}${tracking ? html`<dt>Tracking page</dt><dd><a href="${tracking}">Open the tracking page</a></dd>` : ''}</dl>
${
  shipment.trackingEvents?.length
    ? html`<h3>Tracking events</h3><ol class="timeline">${shipment.trackingEvents.map((e) => html`<li><time>${fmtDate(e.occurred)}</time> ${badge(e.status.replaceAll('_', ' '), e.status === 'delivered' ? 'ok' : e.status === 'exception' || e.status === 'returned' ? 'bad' : 'warn')} ${e.description ?? ''}${e.location ? html` <span class="help">${e.location}</span>` : ''}</li>`)}</ol>`
    : html`<p class="empty">No tracking events from the carrier yet.</p>`
}`
    : html`<p class="empty">Not shipped yet. The shipment and its tracking page appear here once it ships.</p>`;

  const timeline = timelineHtml(
    orderTimeline({ created: new Date(o.created), events, callbackJobs, callbackAttempts }),
  );

  return html`<h2>Lines</h2>${lines}${renderStrip}${addressBlock}
<section class="card" aria-labelledby="ship"><h2 id="ship">Shipment</h2>${shipmentBlock}</section>
<section class="card" aria-labelledby="hist"><h2 id="hist">Timeline</h2>${timeline}</section>`;
}
