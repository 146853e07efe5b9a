// Webhook records (one action of one URL) and their endpoints (one per URL and account).
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export interface WebhookRow {
  id: number
  accountId: number
  endpointId: number
  url: string
  action: string
}

function records(db: Kysely<Database>) {
  return db
    .selectFrom('webhooks')
    .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhooks.endpoint_id')
    .select(['webhooks.id', 'webhooks.account_id', 'webhooks.endpoint_id', 'webhooks.action', 'webhook_endpoints.url'])
}

function toWebhook(row: { id: number; account_id: number; endpoint_id: number; action: string; url: string }): WebhookRow {
  return { id: Number(row.id), accountId: Number(row.account_id), endpointId: Number(row.endpoint_id), url: row.url, action: row.action }
}

export async function listWebhooks(db: Kysely<Database>, accountId: number): Promise<WebhookRow[]> {
  return (await records(db).where('webhooks.account_id', '=', accountId).orderBy('webhooks.id').execute()).map(toWebhook)
}

export async function findWebhook(db: Kysely<Database>, accountId: number, id: number): Promise<WebhookRow | undefined> {
  const row = await records(db).where('webhooks.account_id', '=', accountId).where('webhooks.id', '=', id).executeTakeFirst()
  return row && toWebhook(row)
}

/** The endpoint of a URL, made when the account has none yet. */
export async function endpointFor(db: Kysely<Database>, accountId: number, url: string, now: number): Promise<number> {
  await db
    .insertInto('webhook_endpoints')
    .values({ account_id: accountId, url, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'url']).doNothing())
    .execute()
  const row = await db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', accountId).where('url', '=', url).executeTakeFirstOrThrow()
  return Number(row.id)
}

/** A record for each action; an action the URL already has keeps its record. Returns the records, in action order. */
export async function addWebhooks(db: Kysely<Database>, w: { accountId: number; url: string; actions: string[]; now: number }): Promise<WebhookRow[]> {
  const endpointId = await endpointFor(db, w.accountId, w.url, w.now)
  await db
    .insertInto('webhooks')
    .values(w.actions.map((action) => ({ account_id: w.accountId, endpoint_id: endpointId, action, created_at: w.now })))
    .onConflict((oc) => oc.columns(['account_id', 'action', 'endpoint_id']).doNothing())
    .execute()
  const rows = await records(db).where('webhooks.endpoint_id', '=', endpointId).where('webhooks.action', 'in', w.actions).execute()
  return w.actions.map((action) => toWebhook(rows.find((r) => r.action === action)!))
}

export async function moveWebhook(db: Kysely<Database>, id: number, endpointId: number): Promise<void> {
  await db.updateTable('webhooks').set({ endpoint_id: endpointId }).where('id', '=', id).execute()
}

export async function deleteWebhook(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute()
}

/** Endpoints subscribed to an action of the account: where its events go. */
export async function endpointsFor(db: Kysely<Database>, accountId: number, action: string): Promise<number[]> {
  const rows = await db.selectFrom('webhooks').select('endpoint_id').distinct().where('account_id', '=', accountId).where('action', '=', action).execute()
  return rows.map((r) => Number(r.endpoint_id))
}

/** An endpoint no webhook uses any more gets nothing more: its queue ends as failed. */
export async function retireIfUnused(db: Kysely<Database>, endpointId: number, now: number): Promise<void> {
  const used = await db.selectFrom('webhooks').select('id').where('endpoint_id', '=', endpointId).limit(1).executeTakeFirst()
  if (used) return
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', finished_at: now, last_error: 'the webhook was deleted' })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'queued')
    .execute()
}

export async function webhookSecret(db: Kysely<Database>, accountId: number): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('webhook_secret').where('id', '=', accountId).executeTakeFirst()
  return row?.webhook_secret ?? null
}

/** Sets the secret when the account has none yet (or replaces `previous`); false when another writer was first. */
export async function storeWebhookSecret(db: Kysely<Database>, accountId: number, secret: string, previous: string | null, now: number): Promise<boolean> {
  const query = db.updateTable('accounts').set({ webhook_secret: secret, updated_at: now }).where('id', '=', accountId)
  const result = await (previous === null ? query.where('webhook_secret', 'is', null) : query.where('webhook_secret', '=', previous)).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
