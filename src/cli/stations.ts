import type { Command } from 'commander';
import type { CliContext } from './context.ts';
import { expectOk } from './output.ts';

const PROBLEMS: Record<string, string> = {
  damaged: 'blank_damaged_at_picking',
  missing: 'blank_missing_at_picking',
};

/** The floor's scan stations from a terminal: the same actions and refusals as the console's. */
export function registerStationCommands(production: Command, ctx: CliContext): void {
  production
    .command('printed <batchReference>')
    .description('print station: the batch is printed, and every case in its slots goes on to QC')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, ref: string) => {
        const b = expectOk(await c.request('POST', `/production/batches/${encodeURIComponent(ref)}/printed`));
        ctx.print(json, b, [{ batch: b.reference, status: b.status, printed: b.printed, cases: b.slots.length }]);
      }),
    );
  production
    .command('qc <caseCode>')
    .description('QC station: the case passes, or with --fail is scrapped and made again at the factory’s cost')
    .option('--fail <reason>', 'misprint or damaged_blank')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, code: string, o: { fail?: string }) => {
        const res = expectOk(await c.request('POST', '/production/stations/qc', { code, verdict: o.fail ?? 'pass' }));
        const remake = res.remake ? (res.remake.taken ? 'new blank taken; batched again' : res.remake.message) : '';
        ctx.print(json, res, [{ case: res.unit, order: res.order, line: res.lineIndex, result: res.result, remake }]);
      }),
    );
  production
    .command('picking <caseCode>')
    .description(
      'picking: the blank for the case’s slot is damaged or missing; a new one is taken, or the case is held',
    )
    .requiredOption('--problem <problem>', 'damaged or missing')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, code: string, o: { problem: string }) => {
        const problem = PROBLEMS[o.problem] ?? o.problem;
        const res = expectOk(await c.request('POST', '/production/stations/picking', { code, problem }));
        ctx.print(json, res, [{ case: res.unit, order: res.order, replaced: res.replaced, held: res.message ?? '' }]);
      }),
    );
  production
    .command('pack <caseCode>')
    .description('pack station: the case is on the table; with the parcel’s last case its orders ship')
    .option('--json', 'print JSON')
    .action(
      ctx.action(async (c, json, code: string) => {
        const res = expectOk(await c.request('POST', '/production/stations/pack', { code }));
        const p = res.progress;
        const rows = p.cases.map((x: any) => ({
          order: x.orderReference,
          line: x.lineIndex,
          case: x.unit,
          here: x.packed ? 'yes' : x.why,
        }));
        ctx.print(json, res, rows);
        if (!json) {
          const state = res.shipment
            ? `shipped as ${res.shipment}: print its label and packing slip (podctl production documents ${res.shipment} --out .)`
            : res.shipError
              ? `every case is here, but the parcel did not ship: ${res.shipError}`
              : `${p.packed} of ${p.cases.length} cases here: keep the parcel open`;
          ctx.out(`${p.parcel ?? p.orderReference}: ${state}\n`);
        }
      }),
    );
}
