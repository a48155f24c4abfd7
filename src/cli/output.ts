import { CliError, type OperatorResponse } from './client.ts';

/** Fails with the API's own error message when the operator API refused. */
export function expectOk(res: OperatorResponse): any {
  if (res.status >= 400) {
    const msg =
      res.data && typeof res.data === 'object' ? `${res.data.code}: ${res.data.message}` : `HTTP ${res.status}`;
    throw new CliError(msg);
  }
  return res.data;
}

const cellOf = (v: unknown) =>
  v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/**
 * Rows as aligned columns, or without rows the document's fields as `name  value` lines; JSON only
 * with --json.
 */
export function printed(
  json: boolean,
  data: unknown,
  rows?: Array<Record<string, unknown>>,
  columns?: string[],
): string {
  if (json) return `${JSON.stringify(data, null, 2)}\n`;
  if (!rows) {
    const entries = data && typeof data === 'object' ? Object.entries(data) : [['result', data]];
    const width = Math.max(0, ...entries.map(([k]) => String(k).length));
    return entries.map(([k, v]) => `${String(k).padEnd(width)}  ${cellOf(v)}`).join('\n') + '\n';
  }
  if (rows.length === 0) return '(none)\n';
  const cols = columns ?? Object.keys(rows[0]);
  const cell = cellOf;
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return `${line(cols)}\n${rows.map((r) => line(cols.map((c) => cell(r[c])))).join('\n')}\n`;
}
