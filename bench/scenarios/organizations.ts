/**
 * Many organizations at once, each at the sustained rate the spec allows (default limits, one
 * connection per organization at 50 req/s): p99 over all their requests, and every 429. The target
 * row paces each connection evenly (bench/paced.ts); the second row is the same load as autocannon
 * sends it, each connection's 50 back to back at the start of every second.
 */
import { type Bench, type Row, SECONDS, TENANTS, load, load1, row } from '../harness.ts';
import { paced } from '../paced.ts';
import { peakRss } from '../processes.ts';

export async function organizationScenarios(b: Bench) {
  const { base, f, H, pid, rows } = b;
  await b.warm(base, { path: '/v2/organization', headers: H(f.demoKey) });
  const { result: even, peakMb } = await peakRss(pid, () =>
    paced(base, {
      path: '/v2/organization',
      connections: f.tenants.map((k) => H(k)),
      rate: 50,
      seconds: SECONDS,
      warmupSeconds: 2,
    }),
  );
  const limitedEven = even.statuses[429] ?? 0;
  const r: Row = {
    scenario: `${TENANTS} organizations at 50 req/s each`,
    rps: even.perSecond,
    p50: even.p50,
    p99: even.p99,
    errors: even.errors,
    non2xx: even.requests - (even.statuses[200] ?? 0),
    rssMb: peakMb,
    load: load1(),
    ratio: `${limitedEven} x 429 (target 0), p99 ${even.p99} ms (target < 25)`,
    note: `one connection per organization, each paced every 20 ms from a random phase, default rate limits; max ${even.max} ms; the 2 s warm-up on new connections: p99 ${even.warmup.p99} ms, max ${even.warmup.max} ms`,
  };
  rows.push(r);
  process.stdout.write(
    `  ${r.scenario}: ${r.rps} req/s, p99 ${r.p99} ms (warm-up ${even.warmup.p99} ms), ${limitedEven} x 429\n`,
  );

  let tenant = 0;
  const { result: bursts, peakMb: burstMb } = await peakRss(pid, () =>
    load(
      base,
      { path: '/v2/organization', headers: H(f.tenants[0]) },
      {
        connections: f.tenants.length,
        connectionRate: 50,
        setupClient: (client) => client.setHeaders(H(f.tenants[tenant++ % f.tenants.length])),
      },
    ),
  );
  const limited = Number(bursts.statusCodeStats?.['429']?.count ?? 0);
  const burstRow = row(
    `${TENANTS} organizations, 50 per second in bursts`,
    bursts,
    burstMb,
    "autocannon's connectionRate: each connection sends its 50 back to back at the start of every second",
  );
  burstRow.ratio = `${limited} x 429`;
  rows.push(burstRow);
  process.stdout.write(`  ${burstRow.scenario}: ${burstRow.rps} req/s, p99 ${burstRow.p99} ms, ${limited} x 429\n`);
}
