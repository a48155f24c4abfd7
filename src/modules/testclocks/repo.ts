import type { Executor } from '../../platform/db/index.ts';

export interface TestClockRow {
  organization_id: string;
  frozen_at: Date;
  created_at: Date;
  updated_at: Date;
}

export const testClocksRepo = {
  all: (ex: Executor) => ex.query<TestClockRow>('SELECT * FROM test_clocks'),
  async get(ex: Executor, orgId: string, lock = false): Promise<TestClockRow | null> {
    const rows = await ex.query<TestClockRow>(
      `SELECT * FROM test_clocks WHERE organization_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [orgId],
    );
    return rows[0] ?? null;
  },
  async set(ex: Executor, orgId: string, to: Date, now: Date): Promise<void> {
    await ex.query(
      `INSERT INTO test_clocks (organization_id, frozen_at, created_at, updated_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (organization_id) DO UPDATE SET frozen_at = EXCLUDED.frozen_at, updated_at = EXCLUDED.updated_at`,
      [orgId, to, now],
    );
  },
  async remove(ex: Executor, orgId: string): Promise<boolean> {
    return (await ex.query('DELETE FROM test_clocks WHERE organization_id = $1 RETURNING 1', [orgId])).length > 0;
  },
};
