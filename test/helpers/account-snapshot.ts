// Every row one account owns, table by table, to prove that another account's requests changed none of it.
import type { Deps } from '../../src/services/types.js'

/** Tables with an account_id column. */
const OWNED = ['accounts', 'access_tokens', 'api_keys', 'ledger_entries', 'address_books', 'contacts', 'tags', 'tag_links', 'email_blacklist', 'list_phones', 'sms_blacklist', 'viber_blacklist', 'templates', 'senders', 'sms_senders', 'viber_senders', 'viber_templates', 'outbox', 'jobs', 'campaigns', 'messages', 'webhook_endpoints', 'webhooks', 'events'] as const

/** Rows sorted by their JSON, so the order a database returns them in does not matter. */
function sorted(rows: unknown[]): string[] {
  return rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).sort()
}

export async function snapshotAccount(deps: Deps, accountId: number): Promise<Record<string, string[]>> {
  const db = deps.db
  const out: Record<string, string[]> = {}
  // One round trip per table, in parallel: on PostgreSQL the pool answers them side by side.
  await Promise.all(
    OWNED.map(async (table) => {
      const column = table === 'accounts' ? 'id' : 'account_id'
      out[table] = sorted(await db.selectFrom(table).selectAll().where(column, '=', accountId).execute())
    }),
  )
  const books = db.selectFrom('address_books').select('id').where('account_id', '=', accountId)
  const campaigns = db.selectFrom('campaigns').select('id').where('account_id', '=', accountId)
  const endpoints = db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', accountId)
  const [variables, counts, lists, campaignCounts, links, clicks, deliveries, attempts] = await Promise.all([
    db.selectFrom('address_book_variables').selectAll().where('address_book_id', 'in', books).execute(),
    db.selectFrom('contact_counts').selectAll().where('address_book_id', 'in', books).execute(),
    db.selectFrom('campaign_lists').selectAll().where('campaign_id', 'in', campaigns).execute(),
    db.selectFrom('campaign_counts').selectAll().where('campaign_id', 'in', campaigns).execute(),
    db.selectFrom('short_links').selectAll().where('campaign_id', 'in', campaigns).execute(),
    db.selectFrom('campaign_link_clicks').selectAll().where('campaign_id', 'in', campaigns).execute(),
    db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', 'in', endpoints).execute(),
    db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', 'in', endpoints).execute(),
  ])
  Object.assign(out, {
    address_book_variables: sorted(variables),
    contact_counts: sorted(counts),
    campaign_lists: sorted(lists),
    campaign_counts: sorted(campaignCounts),
    short_links: sorted(links),
    campaign_link_clicks: sorted(clicks),
    webhook_deliveries: sorted(deliveries),
    webhook_attempts: sorted(attempts),
  })
  return out
}
