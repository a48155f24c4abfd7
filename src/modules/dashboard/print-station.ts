import { ApiError } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { value } from './forms.ts';
import { html } from './html.ts';
import type { Ctx, DashRouter } from './router.ts';
import { type Outcome, refusal, stationPage } from './stations.ts';

const PATH = '/console/production/stations/print';

/**
 * A scanner may send the code in capitals (Caps Lock on the wedge): references are `Batch_` and
 * lowercase base32, so the letters after the prefix are read in lowercase.
 */
function batchCode(raw: string): string {
  const s = raw.trim();
  const i = s.indexOf('_');
  return i < 0
    ? s
    : `${s.slice(0, i).charAt(0).toUpperCase()}${s.slice(1, i).toLowerCase()}_${s.slice(i + 1).toLowerCase()}`;
}

/** The print station: by the printer, the operator scans a batch sheet once the jig is printed. */
export function printStation(r: DashRouter): void {
  const { s } = r;
  const f = s.production.floor;

  async function printPage(ctx: Ctx, outcome: Outcome | null) {
    const open = await f.openBatches(20);
    const next = open[0];
    const waiting = open.length
      ? html`<h2>Waiting for the printer (${open.length})</h2><ol class="batches">${open.map(
          (b) =>
            html`<li><code>${b.reference}</code> · ${b.jigName} · ${b.slots.length} cases · <a href="/console/production/batches/${b.reference}/pick-list" target="_blank">pick list</a> · <a href="/console/production/batches/${b.reference}/batch-sheet" target="_blank">batch sheet</a> · <a href="/console/production/batches/${b.reference}/print-file">print file</a></li>`,
        )}</ol>`
      : html`<p class="help">No batch is waiting for the printer.</p>`;
    return stationPage(ctx, {
      title: 'Print station',
      path: PATH,
      next: next
        ? `Load ${next.jigName} with batch …${next.reference.slice(-6)}, print it, then scan its batch sheet`
        : 'Nothing to print: batch the released cases in the production queue',
      outcome,
      choices: '',
      button: 'Mark printed',
      label: 'Batch code',
      placeholder: 'Scan the batch sheet’s barcode',
      after: waiting,
    });
  }

  r.page(PATH, 'operator', async (_req, ctx) => printPage(ctx, null));
  r.action(
    PATH,
    'operator',
    async (req, ctx) => {
      const code = batchCode(value(req.body, 'code') ?? '');
      if (!isReference('Batch', code))
        throw new ApiError(
          'invalid_request',
          isReference('Unit', code)
            ? `${code} is a case, not a batch: scan the barcode on the batch sheet`
            : `"${String(code).slice(0, 40)}" is not a batch code: scan the barcode on the batch sheet`,
        );
      const b = await f.markPrinted(code);
      return {
        html: await printPage(ctx, {
          tone: 'ok',
          headline: `Printed: take the jig to QC`,
          detail: html`<p><code>${b.reference}</code> · ${b.jigName} · ${b.slots.length} cases marked printed.</p>`,
        }),
      };
    },
    async (_req, ctx, opts) => printPage(ctx, refusal(opts)),
  );
  for (const [slug, kind] of [
    ['print-file', 'print-file'],
    ['pick-list', 'pick-list'],
    ['batch-sheet', 'batch-sheet'],
  ])
    r.app.get<{ Params: { ref: string } }>(
      `/console/production/batches/:ref/${slug}`,
      { config: { access: 'public', dashboard: 'operator' } },
      async (req, reply) => {
        await r.context(req, 'operator');
        const file = await f.filePdf(req.params.ref, kind);
        return reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `inline; filename="${file.filename}"`)
          .send(file.bytes);
      },
    );
}
