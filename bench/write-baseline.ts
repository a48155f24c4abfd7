import { stockMovements } from '../src/modules/catalog/stock.ts';
import { orderWriter } from '../src/modules/orders/writer.ts';
import type { AddressRow, OrderlineRow, OrderRow } from '../src/modules/orders/repo.ts';
import { organizationRepo } from '../src/modules/organization/repo.ts';
import { eventsService } from '../src/modules/webhooks/events.ts';
import { ChangeFeed } from '../src/platform/cache.ts';
import { systemClock } from '../src/platform/clock.ts';
import { PostgresDb } from '../src/platform/db/postgres.ts';
import { Cursors } from '../src/platform/http/pagination.ts';
import { newReference } from '../src/platform/ids.ts';

/**
 * The write ceiling of PostgreSQL on this machine for order creation: the rows one `POST /v2/orders`
 * writes (address, order, lines, `order.created` event, the stock reservation of its lines) through the service's own group commit
 * (`orderWriter`: same statements, same batching, same pool), from `CONNECTIONS` loops at once,
 * without HTTP, authentication, validation or pricing. The order copied is the newest one the
 * benchmark's POST scenario created. Prints one JSON line.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required: the write ceiling is measured on PostgreSQL');
const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);

const db = new PostgresDb(url);
try {
  const [order] = await db.query<OrderRow>(
    `SELECT * FROM orders WHERE custom_identifier LIKE 'bench-%' ORDER BY seq DESC LIMIT 1`,
  );
  if (!order) throw new Error('no order of the POST scenario to copy');
  const lines = await db.query<OrderlineRow>('SELECT * FROM orderlines WHERE order_id = $1 ORDER BY line_index', [
    order.id,
  ]);
  const [address] = await db.query<AddressRow>('SELECT * FROM addresses WHERE id = $1', [order.dropship_address_id]);
  const [store] = await db.query<{ code: string }>('SELECT code FROM stores WHERE id = $1', [order.store_id]);
  const stock = stockMovements({
    db,
    clock: systemClock,
    cursors: new Cursors('write-ceiling'),
    changes: new ChangeFeed(db),
  });
  const writer = orderWriter({
    db,
    // The writer uses only the stock reservation of the catalog.
    catalog: { reserveStock: stock.reserveStock } as unknown as Parameters<typeof orderWriter>[0]['catalog'],
    events: eventsService({ clock: systemClock }),
    // The writer uses only the numbering of its organization dependency.
    organization: { takeOrderNumbers: organizationRepo.takeOrderNumbers } as unknown as Parameters<
      typeof orderWriter
    >[0]['organization'],
  });
  let n = 0;
  const copy = () => {
    const now = new Date();
    const id = newReference('Order');
    const addressId = newReference('Address');
    const { seq: _seq, order_number: _number, ...row } = order;
    return {
      order: {
        ...row,
        id,
        custom_identifier: `ceiling-${process.pid}-${n++}`,
        dropship_address_id: address ? addressId : null,
        status_modified_at: now,
        created_at: now,
      },
      lines: lines.map((l) => ({ ...l, order_id: id })),
      address: address ? { ...address, id: addressId, created_at: now } : undefined,
      storeCode: store.code,
    };
  };
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await writer.write(copy());
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]);
  process.stdout.write(
    `${JSON.stringify({ orders: latencies.length, perSecond: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99) })}\n`,
  );
} finally {
  await db.close();
}
