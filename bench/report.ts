/** The run's table: printed, and written to bench/results/latest.{md,json} (not committed). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Row } from './harness.ts';

export interface Startup {
  compiled: { ms: number; rssMb: number };
  fromSource: { ms: number; rssMb: number };
  defaultArenas: { ms: number; rssMb: number };
}

const buffers = (r: Row) => (r.buffersMb === undefined ? '-' : `${r.buffersMb} / ${r.buffersAtRssPeakMb ?? '-'}`);

export function writeReport(
  rows: Row[],
  startup: Startup,
  meta: Record<string, unknown>,
  explain: Record<string, string>,
) {
  const { compiled, fromSource, defaultArenas } = startup;
  const header =
    '| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | server RSS MB | array buffers MB (peak / at RSS peak) | load | ratio | note |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|';
  const startupTable =
    '| start-up | time to ready ms | RSS at ready MB |\n|---|---:|---:|\n' +
    `| compiled (npm start) | ${compiled.ms} | ${compiled.rssMb} |\n` +
    `| from source (tsx) | ${fromSource.ms} | ${fromSource.rssMb} |\n` +
    `| compiled, glibc's default malloc arenas | ${defaultArenas.ms} | ${defaultArenas.rssMb} |\n` +
    `| ratio compiled / source | ${(compiled.ms / fromSource.ms).toFixed(2)} | ${(compiled.rssMb / fromSource.rssMb).toFixed(2)} |\n\n`;
  const md = `${startupTable}${header}\n${rows.map((r) => `| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.rssMb || '-'} | ${buffers(r)} | ${r.load} | ${r.ratio ?? ''} | ${r.note ?? ''} |`).join('\n')}\n`;
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const plans = Object.entries(explain)
    .map(([label, plan]) => `### ${label}\n\n\`\`\`\n${plan}\n\`\`\`\n`)
    .join('\n');
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ meta, rows, explain }, null, 2)}\n`);
  writeFileSync(
    join(dir, 'latest.md'),
    `# Benchmark ${meta.date} (${meta.database}${meta.smoke ? ', smoke' : ''})\n\n${md}\n## EXPLAIN of the order list query\n\n${plans}`,
  );
  process.stdout.write(`\n${md}\n${JSON.stringify(meta)}\n`);
}
