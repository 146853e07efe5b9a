// The registry of dispatching processes (`tidings serve` without --no-dispatch, `tidings worker`): each keeps its
// row fresh with a heartbeat and deletes it on a clean stop; a row past its `live_until` is a process that died
// (dispatcher/worker-presence.ts). `tidings status` and /metrics list the live ones.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // A handful of rows, read whole: no index beyond the key.
  await db.schema
    .createTable('workers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .addColumn('live_until', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
