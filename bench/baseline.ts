import Fastify from 'fastify';
import { parsePgliteThread } from '../src/config.ts';
import { openDb } from '../src/platform/db/index.ts';

/**
 * The two ceilings the service is measured against, in their own process:
 * `/const` is Fastify returning a constant (the HTTP ceiling of this machine), `/pk/:id` is the same
 * single primary-key select the service's GET-by-reference does, without auth, limits or schemas.
 */
const port = Number(process.env.PORT ?? 0);
const db = await openDb({
  databaseUrl: process.env.DATABASE_URL || null,
  dataDir: process.env.DATA_DIR ?? './data-bench-baseline',
  pgliteThread: parsePgliteThread(process.env.PGLITE_THREAD),
});
if (!process.env.DATABASE_URL) {
  await db.exec('CREATE TABLE IF NOT EXISTS bench_rows (id text PRIMARY KEY, payload jsonb NOT NULL)');
  await db.exec(
    `INSERT INTO bench_rows SELECT 'Row_' || g, jsonb_build_object('n', g, 'name', 'row ' || g) FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING`,
  );
}
const table = process.env.BASELINE_TABLE ?? 'bench_rows';
const app = Fastify({ logger: false });
app.get('/const', async () => ({ ok: true }));
app.get('/pk/:id', async (req, reply) => {
  const rows = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [(req.params as { id: string }).id]);
  if (rows.length === 0) return reply.status(404).send({ code: 'not_found' });
  return { row: rows[0] };
});
await app.listen({ host: '127.0.0.1', port });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ ready: true, port: typeof address === 'object' && address ? address.port : port })}\n`,
);
const stop = async () => {
  await app.close();
  await db.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
