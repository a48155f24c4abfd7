import type { DashboardServices } from './router.ts';
import { type Html, badge, euros, fmtDate, html, safeUrl, shortRef, table } from './html.ts';
import { orderHistoryRepo } from './order-history-repo.ts';

type Order = Awaited<ReturnType<DashboardServices['orders']['get']>>;
type Shipment = Awaited<ReturnType<DashboardServices['shipments']['get']>>;
interface Snapshot {
  status?: { code?: string };
  dropshipAddressReference?: string | null;
  orderlines?: Array<{ index: number; canceledQuantity: number }>;
}
interface Entry {
  at: Date;
  what: Html;
  detail?: Html;
}

const deliveryTone = (status: string) => (status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : 'warn');

/** What changed between two snapshots of the order, in words. */
function changes(before: Snapshot | null, after: Snapshot): string[] {
  if (!before) return ['Updated'];
  const out: string[] = [];
  if (before.status?.code !== after.status?.code) out.push(`Status: ${(after.status?.code ?? '?').replace('_', ' ')}`);
  if (before.dropshipAddressReference !== after.dropshipAddressReference) out.push('Address changed');
  for (const line of after.orderlines ?? []) {
    const old = before.orderlines?.find((l) => l.index === line.index);
    if (old && line.canceledQuantity > old.canceledQuantity)
      out.push(`Line ${line.index}: ${line.canceledQuantity - old.canceledQuantity} canceled`);
  }
  return out.length ? out : ['Updated'];
}

/** The product, artwork, address, shipment and history sections of a partner's order page. */
export async function orderSections(
  s: DashboardServices,
  orgId: string,
  o: Order,
  shipment: Shipment | null,
): Promise<Html> {
  const productRefs = [...new Set(o.orderlines.map((l) => l.productReference))];
  const products = new Map(
    await Promise.all(productRefs.map(async (ref) => [ref, await s.catalog.findProduct(orgId, ref)] as const)),
  );
  const shapes = await s.catalog.productShapes(productRefs);
  const imageIds = [...new Set(o.orderlines.map((l) => l.imageReference).filter((x): x is string => !!x))];
  const [events, callbacks, renders, address] = await Promise.all([
    orderHistoryRepo.events(s.db, orgId, o.reference),
    orderHistoryRepo.callbacks(s.db, o.reference),
    orderHistoryRepo.renders(s.db, orgId, imageIds),
    o.dropshipAddressReference ? s.orders.findAddress(orgId, o.dropshipAddressReference) : null,
  ]);

  const lines = table(
    ['#', 'Product', 'Artwork', 'Quantity', 'Canceled', 'Shipped'],
    o.orderlines.map((l) => {
      const p = products.get(l.productReference);
      const pic = p?.media.find((m) => m.kind === 'example_image') ?? p?.media[0];
      return html`<tr><td>${l.index}</td><td><div class="product-cell">${
        pic
          ? html`<img src="/dashboard/products/${l.productReference}/media/${pic.filename}" alt="" width="56" height="56" loading="lazy">`
          : p && shapes.get(l.productReference)?.device
            ? html`<img src="/dashboard/products/${l.productReference}/picture.svg" alt="" width="56" height="56" loading="lazy">`
            : ''
      }<span>${p?.name ?? l.productReference}<br><span class="help">${euros(p?.price ?? 0)} each</span></span></div></td>
<td>${l.imageReference ? html`<a href="/dashboard/images/${l.imageReference}/thumbnail"><img src="/dashboard/images/${l.imageReference}/thumbnail" alt="Artwork of line ${l.index}" width="56" height="56" loading="lazy" class="thumb"></a>` : '—'}</td>
<td>${l.quantity}</td><td>${l.canceledQuantity}</td><td>${l.shippedQuantity}</td></tr>`;
    }),
    { caption: 'Order lines' },
  );
  const renderStrip = renders.length
    ? html`<h2>Renders of the artwork</h2><div class="thumbs">${renders.map((x) => html`<figure><img src="/dashboard/renders/${x.id}/thumbnail" alt="Render ${x.id}" loading="lazy"><figcaption><a href="/dashboard/renders?reference=${x.id}">${x.id}</a></figcaption></figure>`)}</div>`
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

  const entries: Entry[] = [];
  let previous: Snapshot | null = null;
  for (const e of events) {
    const snap = (e.data.order ?? {}) as Snapshot;
    const what =
      e.type === 'order.created'
        ? ['Created']
        : e.type === 'order.shipped'
          ? ['Shipped']
          : e.type === 'order.updated'
            ? changes(previous, snap)
            : [e.type];
    previous = snap;
    const deliveries = e.deliveries ?? [];
    entries.push({
      at: e.created_at,
      what: html`${what.join('; ')}`,
      detail: deliveries.length
        ? html`<ul class="deliveries">${deliveries.map((d) => html`<li>Webhook <span class="ref">${d.url}</span> ${badge(d.status, deliveryTone(d.status))} <span class="help">${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}</span>${d.attempts.length ? html`<ol class="attempts">${d.attempts.map((x) => html`<li>${fmtDate(x.at)}: ${x.responseStatus === null ? 'no response' : `HTTP ${x.responseStatus}`}${x.error ? ` – ${x.error}` : ''}</li>`)}</ol>` : ''}</li>`)}</ul>`
        : undefined,
    });
  }
  if (!events.some((e) => e.type === 'order.created')) entries.push({ at: new Date(o.created), what: html`Created` });
  for (const c of callbacks)
    entries.push({
      at: c.updated_at,
      what: html`Callback to the store ${badge(c.status === 'succeeded' ? 'delivered' : c.status === 'dead' ? 'given up' : 'retrying', c.status === 'succeeded' ? 'ok' : c.status === 'dead' ? 'bad' : 'warn')}`,
      detail: html`<span class="help">${c.attempts} attempt${c.attempts === 1 ? '' : 's'}${c.last_error ? `; last error: ${c.last_error}` : ''}</span>`,
    });
  entries.sort((a, b) => a.at.getTime() - b.at.getTime());
  const timeline = html`<ol class="timeline">${entries.map((x) => html`<li><time>${fmtDate(x.at)}</time> ${x.what}${x.detail ?? ''}</li>`)}</ol>
<p class="help">Events are kept 30 days and delivered callbacks 7 days; older steps drop out of this history.</p>`;

  return html`<h2>Lines</h2>${lines}${renderStrip}${addressBlock}
<section class="card" aria-labelledby="ship"><h2 id="ship">Shipment</h2>${shipmentBlock}</section>
<section class="card" aria-labelledby="hist"><h2 id="hist">Timeline</h2>${timeline}</section>`;
}
