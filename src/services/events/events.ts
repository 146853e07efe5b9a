// Builds the email events of API.md section 6 from the changes that cause them; callers pass their own
// transaction, so an event exists exactly when its change does (docs/webhooks.md lists every field).
import type { Kysely } from 'kysely'
import { insertEvents, recordEvents, subscriptionKey, subscriptionsOf } from '../../storage/repos/events.js'
import type { Database } from '../../storage/tables.js'
import type { WebhookAction } from './webhooks.js'

/** What an event about one message says of it. */
export interface MessageEventSource {
  accountId: number
  email: string
  campaignId: number
  campaignName: string
  bookId: number | null
  /** Fields of this action: link_url, country, status, bounce_reason … */
  extra?: Record<string, unknown>
}

/** The source of an event about `message` of `campaign`. */
export function messageEventSource(
  message: { accountId: number; address: string; bookId: number | null },
  campaign: { id: number; name: string },
  extra?: Record<string, unknown>,
): MessageEventSource {
  return { accountId: message.accountId, email: message.address, campaignId: campaign.id, campaignName: campaign.name, bookId: message.bookId, extra }
}

export async function recordMessageEvents(db: Kysely<Database>, action: WebhookAction, sources: readonly MessageEventSource[], now: number): Promise<void> {
  const byAccount = new Map<number, MessageEventSource[]>()
  for (const s of sources) {
    const group = byAccount.get(s.accountId)
    if (group) group.push(s)
    else byAccount.set(s.accountId, [s])
  }
  for (const [accountId, group] of byAccount) {
    const payloads = async () => {
      const names = await bookNames(db, group.map((s) => s.bookId))
      return group.map((s) => messagePayload(action, s, names, now))
    }
    await recordEvents(db, { accountId, action, payloads, now })
  }
}

/** An event about a message, with its own time: one of a batch of tracking hits. */
export interface TimedMessageEvent {
  action: WebhookAction
  source: MessageEventSource
  now: number
}

/**
 * Events about messages of any actions, accounts and times, stored in the order given (each endpoint receives them
 * in that order) in the caller's transaction; as recordMessageEvents, only those some webhook subscribes to.
 */
export async function recordMessageEventsInOrder(db: Kysely<Database>, events: readonly TimedMessageEvent[]): Promise<void> {
  if (events.length === 0) return
  const subscribed = await subscriptionsOf(db, [...new Set(events.map((e) => e.source.accountId))], [...new Set(events.map((e) => e.action))])
  const wanted = events.flatMap((e) => {
    const endpoints = subscribed.get(subscriptionKey(e.source.accountId, e.action))
    return endpoints ? [{ ...e, endpoints }] : []
  })
  if (wanted.length === 0) return
  const names = await bookNames(db, wanted.map((e) => e.source.bookId))
  await insertEvents(
    db,
    wanted.map((e) => ({ accountId: e.source.accountId, action: e.action, payload: messagePayload(e.action, e.source, names, e.now), createdAt: e.now, endpoints: e.endpoints })),
  )
}

/** The payload of an event about a message (docs/webhooks.md). */
function messagePayload(action: WebhookAction, s: MessageEventSource, names: Map<number, string>, now: number): object {
  const book = s.bookId === null ? {} : { book_id: s.bookId, book_name: names.get(s.bookId) ?? '' }
  return { event: action, timestamp: Math.floor(now / 1000), email: s.email, task_id: s.campaignId, task_name: s.campaignName, ...book, ...s.extra }
}

export async function recordCampaignStatus(db: Kysely<Database>, c: { accountId: number; campaignId: number; campaignName: string; status: number }, now: number): Promise<void> {
  await recordEvents(db, {
    accountId: c.accountId,
    action: 'task_status_update',
    payloads: () => [{ event: 'task_status_update', timestamp: Math.floor(now / 1000), task_id: c.campaignId, task_name: c.campaignName, status: c.status }],
    now,
  })
}

/** What an event about a contact of a list says of it. */
export interface ContactEventSource {
  email: string
  bookId: number
  /** Only new_emails carries them. */
  variables?: Record<string, unknown>
}

/** Events about contacts of the account's lists; the list names are read in the same transaction. */
/** `contacts` may be a function giving them, called only when a webhook subscribes to the action (imports add 10,000 at a time). */
export async function recordContactEvents(
  db: Kysely<Database>,
  action: 'new_emails' | 'delete' | 'unsubscribe',
  accountId: number,
  contacts: readonly ContactEventSource[] | (() => readonly ContactEventSource[]),
  now: number,
): Promise<void> {
  if (typeof contacts !== 'function' && contacts.length === 0) return
  const payloads = async () => {
    const sources = typeof contacts === 'function' ? contacts() : contacts
    const names = await bookNames(db, sources.map((c) => c.bookId))
    return sources.map((c) => ({
      event: action,
      timestamp: Math.floor(now / 1000),
      email: c.email,
      book_id: c.bookId,
      book_name: names.get(c.bookId) ?? '',
      ...(c.variables === undefined ? {} : { variables: c.variables }),
    }))
  }
  await recordEvents(db, { accountId, action, payloads, now })
}

/** The names of lists, read in the caller's transaction. */
async function bookNames(db: Kysely<Database>, ids: readonly (number | null)[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))]
  if (wanted.length === 0) return new Map()
  const books = await db.selectFrom('address_books').select(['id', 'name']).where('id', 'in', wanted).execute()
  return new Map(books.map((b) => [Number(b.id), b.name]))
}
