/**
 * Shopify webhook intake (bench/shopify-intake.ts) and the production floor (bench/floor.ts): each
 * with a server or baseline of its own, measured in the same run.
 */
import { type Bench, timedRow, load1 } from '../harness.ts';
import { floorScenarios } from '../floor.ts';
import { shopifyIntake } from '../shopify-intake.ts';

/** The intake has a server and database of its own, so the main server stops first. */
export async function shopifyScenario(b: Bench) {
  await b.server.stop();
  const s = await shopifyIntake();
  b.rows.push({
    scenario: s.scenario,
    rps: s.webhooksPerSecond,
    p50: s.intakeP50,
    p99: s.intakeP99,
    errors: s.errors,
    non2xx: s.non2xx,
    rssMb: 0,
    load: load1(),
    ratio: `${s.ordersPerSecond} orders/s (target ${s.targetOrdersPerSecond}); other organization's p99 ${s.otherBusyP99} ms against ${s.otherIdleP99} ms idle = ${(s.otherBusyP99 / Math.max(1, s.otherIdleP99)).toFixed(2)}x (target ≤ 2x); server CPU ${s.serverCpuMsPerOrder} ms an order`,
    note: s.note,
  });
  process.stdout.write(`  ${s.scenario}: ${s.webhooksPerSecond} webhooks/s, ${s.ordersPerSecond} orders/s\n`);
}

/** Batching 2,000 released lines and a 12-slot batch print file at 600 dpi, each against a baseline. */
export async function floorRows(b: Bench) {
  for (const r of await floorScenarios()) {
    b.rows.push(
      timedRow(r.scenario, r.ms, {
        ratio: `${r.ms} ms (target under ${r.targetMs} ms); ${(r.ms / Math.max(1, r.baselineMs)).toFixed(2)}x the baseline's ${r.baselineMs} ms`,
        note: r.note,
      }),
    );
    process.stdout.write(`  ${r.scenario}: ${r.ms} ms\n`);
  }
}
