// The liveness probe: one round trip to the database that reads no table.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'

export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db)
}
