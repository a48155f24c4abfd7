/** Prints rows as aligned columns: what `podpartner` shows without `--json`. */
export function table(rows: Array<Record<string, unknown>>, columns: string[], write = print): void {
  if (rows.length === 0) {
    write('(none)');
    return;
  }
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  write(line(columns.map((c) => c.toUpperCase())));
  for (const r of rows) write(line(columns.map((c) => cell(r[c]))));
}

/** `key: value` lines for one object (nested values as JSON). */
export function fields(values: Record<string, unknown>, write = print): void {
  const width = Math.max(...Object.keys(values).map((k) => k.length));
  for (const [k, v] of Object.entries(values)) {
    const shown = v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    write(`${k.padEnd(width)}  ${shown}`);
  }
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function json(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A failure the user can act on: printed as one line, exit code 1, never a stack trace. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
