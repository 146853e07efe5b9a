// A campaign's counts as kept in campaign_counts (by triggers on messages, migration 0014), and the same counted
// from the message rows: equal after any history, a crash included.
import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import { statusCountsOf } from '../../src/storage/repos/message-stats.js'
import type { Database } from '../../src/storage/tables.js'

/** campaign/channel/status=messages,sent,opened,clicked,unsubscribed for every key with messages, from the rows. */
export async function recountedFromRows(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<Record<string, number | string>>`
    select campaign_id, channel, status, count(*) as m, count(sent_at) as s, count(opened_at) as o, count(clicked_at) as c, count(unsubscribed_at) as u
    from messages group by campaign_id, channel, status`.execute(db)
  return rows.map((r) => `${r.campaign_id}/${r.channel}/${r.status}=${r.m},${r.s},${r.o},${r.c},${r.u}`).sort()
}

/** The same from campaign_counts, as every reader sums it. */
export async function keptCounts(db: Kysely<Database>): Promise<string[]> {
  const campaigns = (await db.selectFrom('campaigns').select('id').execute()).map((r) => Number(r.id))
  const out: string[] = []
  for (const [id, counts] of await statusCountsOf(db, campaigns)) {
    for (const c of counts) out.push(`${id}/${c.channel}/${c.status}=${c.messages},${c.sent},${c.opened},${c.clicked},${c.unsubscribed}`)
  }
  return out.sort()
}

export async function assertCountsMatchRows(db: Kysely<Database>, step = 'the kept counts equal a recount of the messages'): Promise<void> {
  assert.deepEqual(await keptCounts(db), await recountedFromRows(db), step)
}
