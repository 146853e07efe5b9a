// Every row of every table, found by introspection (a table added later is included without a change here), in
// a stable order: comparing two snapshots proves that a call changed nothing stored.
import type { Deps } from '../../src/services/types.js'

export type Snapshot = Map<string, string[]>

export async function snapshotAllTables(deps: Deps): Promise<Snapshot> {
  const out: Snapshot = new Map()
  for (const table of await deps.db.introspection.getTables()) {
    const rows = await deps.db.selectFrom(table.name as never).selectAll().execute()
    out.set(table.name, rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).sort())
  }
  return out
}

/** The tables whose rows differ, each with the rows only `before` has and those only `after` has. */
export function changedTables(before: Snapshot, after: Snapshot): Record<string, { removed: string[]; added: string[] }> {
  const out: Record<string, { removed: string[]; added: string[] }> = {}
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const was = new Set(before.get(table) ?? [])
    const is = new Set(after.get(table) ?? [])
    const removed = [...was].filter((row) => !is.has(row))
    const added = [...is].filter((row) => !was.has(row))
    if (removed.length > 0 || added.length > 0) out[table] = { removed, added }
  }
  return out
}
