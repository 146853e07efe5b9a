// Keyset paging under offset paging. Clients page lists with `offset` (API.md 4.1), which makes the
// database skip `offset` rows each time. When a page is read, where it starts and where the next one starts
// are remembered by contact id; a client reading page after page, or the same page again, is then answered
// by keyset. A remembered
// position is used only while the list's contacts generation is unchanged (no contact left or changed
// status since), so the answer is always the one the offset would give. Memory is per process and bounded.
import type { Kysely } from 'kysely'
import type { Database } from '../../storage/tables.js'

const MAX_POSITIONS = 10_000

interface Position {
  afterId: number
  generation: number
}

const positionsByDatabase = new WeakMap<Kysely<Database>, Map<string, Position>>()

function positions(db: Kysely<Database>): Map<string, Position> {
  let map = positionsByDatabase.get(db)
  if (!map) positionsByDatabase.set(db, (map = new Map()))
  return map
}

/** The id the page at `offset` starts after, when a previous page ended exactly there. */
export function knownStart(db: Kysely<Database>, view: string, offset: number, generation: number): number | undefined {
  const position = positions(db).get(`${view}@${offset}`)
  return position && position.generation === generation ? position.afterId : undefined
}

/** Remembers where the page at `offset` starts. */
export function rememberStart(db: Kysely<Database>, view: string, offset: number, generation: number, afterId: number): void {
  const map = positions(db)
  const key = `${view}@${offset}`
  map.delete(key)
  map.set(key, { afterId, generation })
  // Maps keep insertion order: the first key is the least recently remembered.
  if (map.size > MAX_POSITIONS) map.delete(map.keys().next().value as string)
}
