import type { ProductionDeps } from './deps.ts';
import { documentMaker } from './make-documents.ts';
import { printFileMaker } from './make-print-files.ts';

/**
 * The work of the production jobs: drawing the files and storing them, outside any transaction.
 * The PDF builders (pdfkit, fontkit, bwip-js) are loaded by the first file a process makes, not at
 * start: an API node that never runs these jobs does not carry them.
 */
export function productionMaker(deps: ProductionDeps, bleedMm: number) {
  return { ...printFileMaker(deps, bleedMm), ...documentMaker(deps) };
}
