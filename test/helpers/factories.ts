// Test data built through the real services and routes; nothing relies on a shared seed.
import type { FastifyInstance } from 'fastify'
import * as accounts from '../../src/services/accounts/accounts.js'
import { contactColumns, upsertContacts } from '../../src/storage/repos/contact-upserts.js'
import type { Deps } from '../../src/services/types.js'

export interface TestAccount {
  id: number
  clientId: string
  clientSecret: string
  token: string
  /** When the token was issued, on the test clock: TestApp.call takes a new one before it expires. */
  tokenIssuedAt: number
}

let counter = 0

/** An account with credentials and a token obtained through POST /oauth/access_token. */
export async function createAccount(deps: Deps, app: FastifyInstance, name = `account ${++counter}`): Promise<TestAccount> {
  const created = await accounts.createAccount(deps, { name, balance: '100' })
  const answer = await app.inject({
    method: 'POST',
    url: '/oauth/access_token',
    payload: { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret },
  })
  if (answer.statusCode !== 200) throw new Error(`token call failed: ${answer.statusCode} ${answer.body}`)
  return { id: created.id, clientId: created.client_id, clientSecret: created.client_secret, token: answer.json<{ access_token: string }>().access_token, tokenIssuedAt: deps.now() }
}

/** Gives the account a new access token (tests move the clock by days; a token lives at most one). */
export async function renewToken(deps: Deps, app: FastifyInstance, account: TestAccount): Promise<void> {
  const answer = await app.inject({ method: 'POST', url: '/oauth/access_token', payload: { client_id: account.clientId, client_secret: account.clientSecret } })
  if (answer.statusCode !== 200) throw new Error(`token call failed: ${answer.statusCode} ${answer.body}`)
  account.token = answer.json<{ access_token: string }>().access_token
  account.tokenIssuedAt = deps.now()
}

/** Puts contacts with given statuses into a list through the contact repository (which keeps the counts). */
export async function insertContacts(
  deps: Deps,
  contacts: { accountId: number; bookId: number; email: string; status: number; phone?: string }[],
): Promise<void> {
  const groups = new Map<string, typeof contacts>()
  for (const c of contacts) {
    const key = `${c.accountId}:${c.bookId}:${c.status}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  for (const group of groups.values()) {
    const [first] = group
    if (!first) continue
    await upsertContacts(deps.db, {
      accountId: first.accountId,
      bookId: first.bookId,
      status: first.status,
      source: 'api',
      now: deps.now(),
      contacts: contactColumns(group.map((c) => ({ email: c.email, phone: c.phone ?? null, variables: '{}' }))),
    })
  }
}

/** A snapshot of every table's rows, to prove that a rejected request changed nothing. */
export async function snapshotDatabase(deps: Deps): Promise<Record<string, unknown[]>> {
  const byId = ['accounts', 'api_keys', 'ledger_entries', 'address_books', 'address_book_variables', 'contacts', 'tags', 'senders', 'jobs', 'outbox', 'templates', 'campaigns', 'messages', 'list_phones', 'sms_senders'] as const
  const out: Record<string, unknown[]> = {}
  for (const table of byId) out[table] = await deps.db.selectFrom(table).selectAll().orderBy('id').execute()
  out.access_tokens = await deps.db.selectFrom('access_tokens').selectAll().orderBy('token_hash').execute()
  out.tag_links = await deps.db.selectFrom('tag_links').selectAll().orderBy(['tag_id', 'kind', 'value']).execute()
  out.email_blacklist = await deps.db.selectFrom('email_blacklist').selectAll().orderBy(['account_id', 'email']).execute()
  out.settings = await deps.db.selectFrom('settings').selectAll().orderBy('key').execute()
  out.campaign_lists = await deps.db.selectFrom('campaign_lists').selectAll().orderBy(['campaign_id', 'address_book_id']).execute()
  out.campaign_link_clicks = await deps.db.selectFrom('campaign_link_clicks').selectAll().orderBy(['campaign_id', 'link']).execute()
  out.sms_blacklist = await deps.db.selectFrom('sms_blacklist').selectAll().orderBy(['account_id', 'phone']).execute()
  out.sms_parts = await deps.db.selectFrom('sms_parts').selectAll().orderBy('provider_id').execute()
  out.short_links = await deps.db.selectFrom('short_links').selectAll().orderBy('code').execute()
  out.contact_counts = await deps.db.selectFrom('contact_counts').selectAll().orderBy(['address_book_id', 'status', 'with_phone']).execute()
  return out
}
