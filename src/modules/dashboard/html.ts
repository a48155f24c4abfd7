/**
 * HTML building that escapes by default: every interpolated value is text unless it is already an
 * `Html` built by this module, so a partner's store name can never become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);

function piece(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(piece).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

/** For markup that is constant and written here (never for data). */
export const trusted = (s: string) => new Html(s);

/** Only http(s) and same-site links may become an href or src; anything else is dropped. */
export function safeUrl(u: string | null | undefined): string | null {
  if (!u) return null;
  if (u.startsWith('/') && !u.startsWith('//')) return u;
  try {
    const p = new URL(u);
    return p.protocol === 'http:' || p.protocol === 'https:' ? p.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The path of a picture this service serves itself (under `prefix`), whatever host the URL names:
 * pages load pictures only from their own origin, so no request leaves for a partner-given URL.
 * Null for anything else.
 */
export function ownPath(u: string | null | undefined, prefix: string): string | null {
  if (!u) return null;
  try {
    const { pathname } = new URL(u, 'http://service.invalid');
    return pathname.startsWith(prefix) && !pathname.includes('/..') ? pathname : null;
  } catch {
    return null;
  }
}

/** `1 item`, `5 items`. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const fmtDate = (iso: string | Date | null | undefined) => {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};
export const euros = (cents: number) => `€ ${(cents / 100).toFixed(2)}`;

let fieldCounter = 0;
const fieldId = (name: string) =>
  `f-${name.replace(/[^\w-]/g, '-')}-${(fieldCounter = (fieldCounter + 1) % 1_000_000)}`;

export interface FieldOptions {
  label: string | Html;
  name: string;
  value?: string | number | null;
  type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'color' | 'file' | 'datetime-local' | 'search';
  required?: boolean;
  help?: string;
  autocomplete?: string;
  min?: number;
  max?: number;
  maxlength?: number;
  pattern?: string;
  accept?: string;
  readonly?: boolean;
  attrs?: Html;
}

/** A labelled input: the label is bound by id, help text by aria-describedby. */
export function field(o: FieldOptions): Html {
  const id = fieldId(o.name);
  const helpId = o.help ? `${id}-help` : null;
  return html`<div class="field"><label for="${id}">${o.label}${o.required ? html`<span class="req" aria-hidden="true"> *</span>` : ''}</label>
<input id="${id}" name="${o.name}" type="${o.type ?? 'text'}"${o.value !== undefined && o.value !== null && o.type !== 'password' && o.type !== 'file' ? html` value="${String(o.value)}"` : ''}${o.required ? trusted(' required') : ''}${o.readonly ? trusted(' readonly') : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.min !== undefined ? html` min="${o.min}"` : ''}${o.max !== undefined ? html` max="${o.max}"` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${o.pattern ? html` pattern="${o.pattern}"` : ''}${o.accept ? html` accept="${o.accept}"` : ''}${helpId ? html` aria-describedby="${helpId}"` : ''}${o.attrs ?? ''}>
${helpId ? html`<p class="help" id="${helpId}">${o.help}</p>` : ''}</div>`;
}

export function select(o: {
  label: string;
  name: string;
  value?: string | null;
  options: Array<{ value: string; label: string }>;
  required?: boolean;
  help?: string;
}): Html {
  const id = fieldId(o.name);
  return html`<div class="field"><label for="${id}">${o.label}</label>
<select id="${id}" name="${o.name}"${o.required ? trusted(' required') : ''}>${o.options.map((opt) => html`<option value="${opt.value}"${opt.value === (o.value ?? '') ? trusted(' selected') : ''}>${opt.label}</option>`)}</select>
${o.help ? html`<p class="help">${o.help}</p>` : ''}</div>`;
}

export function checkbox(o: { label: string; name: string; checked?: boolean; value?: string }): Html {
  const id = fieldId(o.name);
  return html`<div class="field check"><input id="${id}" type="checkbox" name="${o.name}" value="${o.value ?? 'on'}"${o.checked ? trusted(' checked') : ''}><label for="${id}">${o.label}</label></div>`;
}

export function textarea(o: {
  label: string;
  name: string;
  value?: string | null;
  rows?: number;
  maxlength?: number;
}): Html {
  const id = fieldId(o.name);
  return html`<div class="field"><label for="${id}">${o.label}</label><textarea id="${id}" name="${o.name}" rows="${o.rows ?? 3}"${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}>${o.value ?? ''}</textarea></div>`;
}

/** Every form posts its session's synchroniser token; the server refuses a POST without it. */
export function form(
  action: string,
  csrf: string,
  body: Html | Html[],
  opts: { multipart?: boolean; className?: string; label?: string; confirm?: string } = {},
): Html {
  return html`<form method="post" action="${action}"${opts.multipart ? trusted(' enctype="multipart/form-data"') : ''}${opts.className ? html` class="${opts.className}"` : ''}${opts.label ? html` aria-label="${opts.label}"` : ''}${opts.confirm ? html` data-confirm="${opts.confirm}"` : ''}><input type="hidden" name="_csrf" value="${csrf}">${body}</form>`;
}

/** A one-button form (revoke, retry, enable ...). */
export const buttonForm = (
  action: string,
  csrf: string,
  label: string,
  opts: { danger?: boolean; confirm?: string; hidden?: Record<string, string> } = {},
) =>
  form(
    action,
    csrf,
    html`${Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit" class="${opts.danger ? 'btn danger' : 'btn secondary'}">${label}</button>`,
    { className: 'inline', confirm: opts.confirm },
  );

/**
 * Each cell carries its column's name, so a phone can show every row as a card of labelled values
 * (the CSS does that below 640 px). Rows holding a table of their own are left as they are.
 */
function labelCells(row: Html, headers: string[]): Html {
  if (/<table[\s>]/.test(row.value)) return row;
  let column = 0;
  return new Html(
    row.value.replace(/<t([rdh])(?=[\s>])/g, (tag, kind: string) => {
      if (kind === 'r') column = 0;
      if (kind !== 'd') {
        if (kind === 'h') column++;
        return tag;
      }
      const label = headers[column++];
      return label ? `<td data-label="${escapeHtml(label)}"` : tag;
    }),
  );
}

export function table(headers: string[], rows: Html[], opts: { caption?: string; empty?: string } = {}): Html {
  if (rows.length === 0) return html`<p class="empty">${opts.empty ?? 'Nothing here yet.'}</p>`;
  return html`<div class="table-wrap cards" role="region" aria-label="${opts.caption ?? 'Table'}" tabindex="0"><table>${opts.caption ? html`<caption>${opts.caption}</caption>` : ''}<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map((row) => labelCells(row, headers))}</tbody></table></div>`;
}

/** How a long reference reads on a page: its type and both ends (`Order_7e3f…ace0`, a UUID's first 8 and last 4). */
export function abbreviate(ref: string): string {
  const cut = ref.indexOf('_') + 1;
  const head = ref.slice(0, cut);
  const rest = ref.slice(cut);
  const keep = cut ? 4 : 8;
  return rest.length <= keep + 6 ? ref : `${head}${rest.slice(0, keep)}…${rest.slice(-4)}`;
}

/**
 * A reference shortened for reading, with a copy button that copies the whole of it. Screen
 * readers, search in the page and text assertions see the full reference.
 */
export function shortRef(ref: string, opts: { href?: string | null } = {}): Html {
  const short = abbreviate(ref);
  const label =
    short === ref
      ? html`<code>${ref}</code>`
      : html`<code aria-hidden="true" title="${ref}">${short}</code><span class="sr-only">${ref}</span>`;
  const href = safeUrl(opts.href);
  return html`<span class="sref">${href ? html`<a href="${href}">${label}</a>` : label}<button type="button" class="copy" data-copy-value="${ref}" aria-label="Copy ${ref}" title="Copy">Copy</button></span>`;
}

export const badge = (text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral' = 'neutral') =>
  html`<span class="badge ${tone}">${text}</span>`;

export function statusTone(status: string): 'ok' | 'warn' | 'bad' | 'neutral' {
  if (['active', 'succeeded', 'shipped', 'resolved', 'launched', 'enabled', 'open', 'accepted'].includes(status))
    return 'ok';
  if (['pending', 'preorder', 'in_production', 'invited', 'prelaunched', 'running'].includes(status)) return 'warn';
  if (
    ['revoked', 'failed', 'dead', 'canceled', 'rejected', 'disabled', 'expired', 'sunsetted', 'archived'].includes(
      status,
    )
  )
    return 'bad';
  return 'neutral';
}
