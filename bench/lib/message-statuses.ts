// A campaign's message statuses read straight from the database while `tidings serve` sends it (SQLite read-only
// in WAL mode, or one PostgreSQL connection): one indexed count (messages_campaign_status) instead of
// GET /sms/campaigns/info/{id}, which answers every number.
import SQLite from 'better-sqlite3'
import pg from 'pg'
import type { BenchDatabase } from './tidings.js'

export interface StatusReader {
  /** Messages of the campaign by status code. */
  statuses(campaignId: number): Promise<Map<number, number>>
  /** The campaign's status code. */
  campaignStatus(campaignId: number): Promise<number | null>
  close(): Promise<void>
}

const STATUSES = 'select status, count(*) as n from messages where campaign_id = $1 group by status'
const CAMPAIGN = 'select status from campaigns where id = $1'

export async function statusReader(database: BenchDatabase): Promise<StatusReader> {
  if (database.dialect === 'sqlite') {
    const db = new SQLite(database.url.slice('sqlite:'.length), { readonly: true, fileMustExist: true })
    const statuses = db.prepare<[number], { status: number; n: number }>(STATUSES.replace('$1', '?'))
    const campaign = db.prepare<[number], { status: number }>(CAMPAIGN.replace('$1', '?'))
    return {
      statuses: async (id) => new Map(statuses.all(id).map((r) => [r.status, r.n])),
      campaignStatus: async (id) => campaign.get(id)?.status ?? null,
      close: async () => void db.close(),
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  return {
    statuses: async (id) => new Map((await client.query<{ status: number; n: string }>(STATUSES, [id])).rows.map((r) => [Number(r.status), Number(r.n)])),
    campaignStatus: async (id) => {
      const row = (await client.query<{ status: number }>(CAMPAIGN, [id])).rows[0]
      return row ? Number(row.status) : null
    },
    close: () => client.end(),
  }
}
