import { type Html, html } from './html.ts';

export interface PageContext {
  area: 'dashboard' | 'console' | 'public';
  env: 'test' | 'production';
  csrf: string;
  email?: string;
  organizationName?: string;
  flash?: string | null;
  path: string;
}

const PARTNER_NAV: Array<[string, string]> = [
  ['/dashboard', 'Overview'],
  ['/dashboard/accounts', 'Accounts'],
  ['/dashboard/stores', 'Stores'],
  ['/dashboard/brands', 'Brands'],
  ['/dashboard/api-keys', 'API keys'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/shopify', 'Shopify'],
  ['/dashboard/orders', 'Orders'],
  ['/dashboard/billing', 'Billing'],
  ['/dashboard/claims', 'Claims'],
  ['/dashboard/renders', 'Renders'],
  ['/dashboard/scenes', 'Photo scenes'],
  ['/dashboard/requests', 'Request log'],
  ['/dashboard/usage', 'Usage'],
  ['/dashboard/users', 'Users'],
];
const CONSOLE_NAV: Array<[string, string]> = [
  ['/console', 'Organizations'],
  ['/console/catalog', 'Catalog'],
  ['/console/stock', 'Stock'],
  ['/console/billing', 'Billing'],
  ['/console/production', 'Production'],
  ['/console/shipments', 'Shipments'],
  ['/console/claims', 'Claims'],
  ['/console/jobs', 'Jobs'],
  ['/console/requests', 'Support lookup'],
];

function nav(ctx: PageContext): Html {
  const items = ctx.area === 'console' ? CONSOLE_NAV : ctx.area === 'dashboard' ? PARTNER_NAV : [];
  if (!items.length) return html``;
  const current = (href: string) =>
    ctx.path === href ||
    (href !== '/dashboard' && href !== '/console' && ctx.path.startsWith(`${href}/`)) ||
    (href === '/console' && ctx.path.startsWith('/console/organizations'));
  return html`<nav aria-label="Main"><ul>${items.map(([href, label]) => html`<li><a href="${href}"${current(href) ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>`;
}

/** The page shell: skip link, header with navigation and sign-out, the environment banner, main. */
export function page(
  ctx: PageContext,
  title: string,
  body: Html,
  opts: { error?: string | null; notice?: string | null } = {},
): string {
  const notice = opts.notice ?? ctx.flash;
  const who = ctx.email
    ? html`<div class="who"><span>${ctx.email}${ctx.organizationName ? html` · ${ctx.organizationName}` : ''}</span>
<form method="post" action="/${ctx.area === 'console' ? 'console' : 'dashboard'}/sign-out" class="inline"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button type="submit" class="btn link">Sign out</button></form></div>`
    : html``;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${ctx.area === 'console' ? 'Operator console' : 'Partner dashboard'}</title>
<link rel="stylesheet" href="/dashboard/assets/app.css"><script src="/dashboard/assets/app.js" defer></script></head>
<body class="${ctx.area}"><a class="skip" href="#main">Skip to content</a>
${ctx.env === 'test' ? html`<section class="env-banner" aria-label="Environment">Test environment: orders are not produced and nothing is charged.</section>` : ''}
<header class="top"><div class="brand-name">${ctx.area === 'console' ? 'Operator console' : 'Partner dashboard'}</div>${ctx.area === 'public' ? '' : html`<button type="button" class="menu-toggle" aria-controls="main-nav" aria-expanded="false" hidden>Menu</button>`}${who}</header>
${nav(ctx)}
<main id="main" tabindex="-1"><h1>${title}</h1>
${opts.error ? html`<div class="alert error" role="alert">${opts.error}</div>` : ''}
${notice ? html`<div class="alert notice" role="status">${notice}</div>` : ''}
${body}</main></body></html>`.value;
}

export const CSS = `
:root{--fg:#1a1d21;--muted:#4d5560;--bg:#f6f7f9;--card:#fff;--line:#d4d8de;--accent:#0b57d0;--accent-fg:#fff;--danger:#b3261e;--ok:#146c2e;--warn:#8a5300;--focus:#ffbf47}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;box-shadow:0 0 0 5px #1a1d21}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}.skip:focus{left:.5rem}
.env-banner{background:#fff4ce;color:#3d2e00;border-bottom:1px solid #e0c36a;padding:.4rem 1rem;font-weight:600;text-align:center}
header.top{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:space-between;align-items:center;padding:.75rem 1rem;background:#14213d;color:#fff}
header.top .brand-name{font-weight:700;font-size:1.1rem}.who{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
body.console header.top{background:#3b1f4a}
.menu-toggle{display:none}.btn.link{background:none;border:0;color:#fff;text-decoration:underline;padding:0;cursor:pointer;font:inherit}
nav ul{list-style:none;margin:0;padding:.25rem .5rem;display:flex;flex-wrap:wrap;gap:.25rem;background:#fff;border-bottom:1px solid var(--line)}
nav a{display:block;padding:.45rem .7rem;border-radius:6px;text-decoration:none;color:var(--fg)}nav a[aria-current=page]{background:#e3ebfb;color:#0b3a8c;font-weight:600}
main{max-width:1100px;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.25rem;margin:1.5rem 0 .5rem}h3{font-size:1.05rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(260px,1fr))}
.field{margin:0 0 .8rem;display:flex;flex-direction:column;gap:.25rem}.field.check{flex-direction:row;align-items:center;gap:.5rem}
label{font-weight:600}.req{color:var(--danger)}.help{margin:0;color:var(--muted);font-size:.9rem}
input,select,textarea{font:inherit;padding:.5rem .6rem;border:1px solid #8a929c;border-radius:6px;background:#fff;color:var(--fg);max-width:100%}
input[type=color]{padding:.1rem;height:2.6rem;width:4rem}input[type=checkbox]{width:1.2rem;height:1.2rem}
fieldset{border:1px solid var(--line);border-radius:8px;margin:0 0 1rem;padding:.5rem 1rem}legend{font-weight:700;padding:0 .3rem}
.btn,button{font:inherit;cursor:pointer;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);padding:.5rem 1rem;min-height:2.5rem}
.btn.secondary{background:#fff;color:var(--accent)}.btn.danger{background:var(--danger);border-color:var(--danger);color:#fff}
form.inline{display:inline-block;margin:0 .25rem .25rem 0}
.alert{padding:.75rem 1rem;border-radius:8px;margin:0 0 1rem;border:1px solid}.alert.error{background:#fce8e6;border-color:#e6a19b;color:#7a1610}.alert.notice{background:#e6f4ea;border-color:#9dd1ab;color:#0d4a20}
.table-wrap{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:10px;margin:0 0 1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.5rem .7rem;border-bottom:1px solid #e6e9ed;vertical-align:top}th{background:#f0f2f5;font-size:.9rem}
caption{text-align:left;padding:.5rem .7rem;font-weight:700}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.85rem;font-weight:600;border:1px solid}
.badge.ok{background:#e6f4ea;color:var(--ok);border-color:#9dd1ab}.badge.warn{background:#fff4ce;color:var(--warn);border-color:#e0c36a}.badge.bad{background:#fce8e6;color:var(--danger);border-color:#e6a19b}.badge.neutral{background:#eef0f3;color:var(--muted);border-color:#c9ced5}
.secret{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}.secret code{background:#14213d;color:#fff;padding:.5rem .7rem;border-radius:6px;word-break:break-all;font-size:.95rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}.ref{word-break:break-all}
.empty{color:var(--muted)}dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-word}
.swatch{display:inline-block;width:1.1rem;height:1.1rem;border-radius:4px;border:1px solid #666;vertical-align:middle}
.preview{border-radius:10px;overflow:hidden;border:1px solid var(--line);max-width:360px}.preview .pv-head{padding:.8rem 1rem;display:flex;gap:.6rem;align-items:center;font-weight:700}
.preview .pv-head img{max-height:32px;max-width:96px}.preview .pv-body{padding:1rem}.preview .pv-step{display:inline-block;padding:.2rem .6rem;border-radius:999px;font-weight:600}
.thumbs{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:.75rem}.thumbs figure{margin:0;background:#fff;border:1px solid var(--line);border-radius:8px;padding:.5rem}.thumbs img{width:100%;height:auto;display:block}
.render-full{display:block;width:100%;max-width:640px;height:auto;border-radius:8px;border:1px solid var(--line)}
.thumbs figcaption{font-size:.8rem;word-break:break-all}td .thumbs{grid-template-columns:repeat(auto-fill,minmax(96px,120px))}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}.filters .field{margin:0}
.meter{height:.7rem;background:#e6e9ed;border-radius:999px;overflow:hidden}.meter span{display:block;height:100%;background:var(--accent)}
.auth{max-width:420px;margin:2rem auto}
.product-cell{display:flex;gap:.5rem;align-items:center}.product-cell img,img.thumb{border:1px solid var(--line);border-radius:6px;background:#fff;object-fit:contain}
.product-page{display:flex;flex-wrap:wrap;gap:1rem 1.5rem;align-items:flex-start}.product-page>div{flex:1 1 18rem;min-width:0}ul.colourway{list-style:none;padding:0;margin:.25rem 0;display:grid;gap:.35rem}ul.colourway .swatch{width:1.5rem;height:1.5rem}
img.thumb.drawn{background:#eef0f3 center/contain no-repeat}
address{font-style:normal;line-height:1.4}ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}ol.timeline>li{position:relative;padding:.2rem 0 .6rem 1rem}ol.timeline>li::before{content:"";position:absolute;left:-.5rem;top:.6rem;width:.7rem;height:.7rem;border-radius:50%;background:var(--accent)}
ol.timeline>li.ok::before{background:var(--ok)}ol.timeline>li.warn::before{background:var(--warn)}ol.timeline>li.bad::before{background:var(--danger)}ol.timeline>li{overflow-wrap:anywhere}
ol.timeline time{display:block;font-size:.85rem;color:var(--muted)}ul.deliveries{margin:.2rem 0 0;padding-left:1rem;font-size:.9rem}ol.attempts{margin:0;padding-left:1.2rem;font-size:.85rem;color:var(--muted)}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.tiles{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));margin:0 0 1rem}.tile{display:flex;flex-direction:column;text-decoration:none;color:var(--fg);margin:0}.tile-label{color:var(--muted);font-size:.9rem}.tile-value{font-size:1.6rem;font-weight:700}
.tile.bad{border-color:#e6a19b;background:#fce8e6}.tile.bad .tile-value{color:var(--danger)}.tile.warn .tile-value{color:var(--warn)}
.alert-card{border-color:#e6a19b;background:#fff7f6}.alert-card h2{color:var(--danger);margin-top:0}
.chart{margin:0}.card>h2:first-child{margin-top:0}.chart svg.bars{width:100%;height:auto;display:block}.legend{display:flex;flex-wrap:wrap;gap:.75rem;font-size:.9rem;margin:.5rem 0}svg.gauge{width:100%;max-width:420px;height:24px}
ol.checklist{padding-left:0;list-style:none}ol.checklist li{padding:.3rem 0}.checklist .tick{display:inline-block;width:1.4rem;font-weight:700}.checklist .done{color:var(--muted)}.checklist .done .tick{color:var(--ok)}
.order-cards{list-style:none;padding:0;display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(280px,1fr))}.order-cards li{display:flex;gap:.75rem;align-items:center;margin:0}.order-cards .pics{display:flex;gap:.25rem}.order-cards img{border:1px solid var(--line);border-radius:6px;background:#fff;object-fit:contain}.nopic{font-size:.75rem;color:var(--muted);width:64px;text-align:center}
pre.json{background:#fff;border:1px solid var(--line);border-radius:8px;padding:.75rem;overflow:auto;max-height:28rem;font-size:.85rem;white-space:pre-wrap;word-break:break-word}.btn.small{padding:.15rem .5rem;min-height:0;font-size:.85rem}
.sref{display:inline-flex;flex-wrap:wrap;align-items:center;gap:.3rem;max-width:100%}.sref code{overflow-wrap:anywhere}button.copy{font-size:.75rem;padding:0 .4rem;min-height:1.6rem;background:#fff;color:var(--accent);border-color:#9bb5e4}
@media (max-width:640px){.table-wrap.cards{overflow:visible;background:none;border:0}.table-wrap.cards table,.table-wrap.cards tbody,.table-wrap.cards tr,.table-wrap.cards td{display:block;width:auto}
.table-wrap.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}.table-wrap.cards caption{display:block;padding:0 0 .5rem}
.table-wrap.cards tr{background:#fff;border:1px solid var(--line);border-radius:10px;margin:0 0 .75rem;padding:.4rem .75rem}.table-wrap.cards td{border:0;padding:.3rem 0;overflow-wrap:anywhere}
.table-wrap.cards td[data-label]{position:relative;padding-left:calc(30% + .5rem);min-height:2rem}
.table-wrap.cards td[data-label]::before{content:attr(data-label);position:absolute;left:0;top:.35rem;width:30%;font-weight:600;font-size:.85rem;line-height:1.3;color:var(--muted)}
.table-wrap:not(.cards) table{min-width:600px}.tiles{grid-template-columns:repeat(2,minmax(0,1fr))}.tile-value{font-size:1.3rem}.menu-toggle:not([hidden]){display:inline-block;background:#fff;color:#14213d;border-color:#fff}nav.collapsible:not(.open){display:none}nav.collapsible ul{flex-direction:column;flex-wrap:nowrap}nav.collapsible a{white-space:normal}header.top .who{font-size:.85rem;width:100%}main{padding:.75rem}h1{font-size:1.35rem}th,td{padding:.4rem}nav ul{overflow-x:auto;flex-wrap:nowrap}nav a{white-space:nowrap}}
`;

/** Copy buttons, the brand colour preview and confirmations; the pages work without it. */
export const JS = `
document.addEventListener('click',function(e){var b=e.target.closest('[data-copy],[data-copy-value]');if(!b)return;var v=b.getAttribute('data-copy-value'),el=v===null?document.getElementById(b.getAttribute('data-copy')):null;if(v===null&&!el)return;var t=v===null?el.textContent:v;
function done(){b.textContent='Copied'}
function fallback(){if(el){var r=document.createRange();r.selectNodeContents(el);var s=getSelection();s.removeAllRanges();s.addRange(r);b.textContent='Selected: press Ctrl+C';return}
var a=document.createElement('textarea');a.value=t;a.setAttribute('readonly','');a.style.position='fixed';a.style.opacity='0';document.body.appendChild(a);a.select();var ok=false;try{ok=document.execCommand('copy')}catch(x){}a.remove();if(ok)done();else b.textContent=t;}
(navigator.clipboard?navigator.clipboard.writeText(t):Promise.reject()).then(done,fallback);});
document.addEventListener('submit',function(e){var m=e.target.getAttribute('data-confirm');if(m&&!confirm(m))e.preventDefault();});
function preview(){var p=document.querySelector('[data-preview]');if(!p)return;var f=p.closest('form')||document;
function q(n){return f.querySelector('[name="'+n+'"]')}var pc=q('primaryColor'),sc=q('secondaryColor'),nm=q('name'),em=q('customerServiceEmail');
function fg(h){var n=parseInt(h.slice(1),16),l=(0.299*(n>>16)+0.587*((n>>8)&255)+0.114*(n&255));return l>150?'#111':'#fff'}
function upd(){if(pc){var h=p.querySelector('.pv-head'),st=p.querySelector('.pv-step');h.style.background=pc.value;h.style.color=fg(pc.value);st.style.background=pc.value;st.style.color=fg(pc.value);}if(sc){p.querySelector('.pv-body').style.background=sc.value;}
if(nm){p.querySelector('.pv-name').textContent=nm.value||'Your brand';}if(em){p.querySelector('.pv-contact').textContent=em.value?('Questions? '+em.value):'';}}
[pc,sc,nm,em].forEach(function(i){if(i)i.addEventListener('input',upd)});upd();}
document.addEventListener('DOMContentLoaded',preview);
document.addEventListener('DOMContentLoaded',function(){var b=document.querySelector('.menu-toggle'),n=document.querySelector('nav[aria-label=Main]');if(!b||!n)return;n.id='main-nav';b.hidden=false;n.classList.add('collapsible');
b.addEventListener('click',function(){var o=n.classList.toggle('open');b.setAttribute('aria-expanded',String(o));});});
`;
