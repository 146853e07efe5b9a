// Messages as the dispatcher's queue: recipients copied in, claimed in batches under a lease, their results
// recorded only by the claim that still holds them, and moved as a campaign is held, moved or canceled.
import { sql, type Kysely, type RawBuilder, type UpdateObject } from 'kysely'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { leaseFree, skippingLocked } from './leases.js'
import { prepareQuery } from '../prepared-query.js'
import { CONTACT_STATUS } from './contacts.js'
import { CAPTURED, MESSAGE_STATUS, UNFINISHED, toMessage, type MessageRow } from './messages.js'
import type { CampaignChannel } from './campaigns.js'

/**
 * Copies the next `batch` contacts (by id, after `afterId`) of a list into the campaign: active ones only, not
 * blacklisted, and each address once per campaign. Returns how many were copied and the last contact id
 * looked at; `lastId` undefined means the list has no more contacts.
 */
export async function snapshotBatch(
  db: Kysely<Database>,
  s: { campaignId: number; accountId: number; bookId: number; afterId: number; batch: number; queued: boolean; sendAt: number; now: number },
): Promise<{ copied: number; lastId: number | undefined }> {
  const boundary = await withoutBitmapScans(db, () =>
    db.selectFrom('contacts').select('id').where('address_book_id', '=', s.bookId).where('id', '>', s.afterId).orderBy('id').limit(1).offset(s.batch - 1).executeTakeFirst(),
  )
  const upTo = boundary === undefined ? undefined : Number(boundary.id)
  let source = db
    .selectFrom('contacts as c')
    .select((eb) => [
      eb.val(s.campaignId).as('campaign_id'),
      'c.account_id',
      'c.id',
      'c.address_book_id',
      'c.email',
      'c.variables',
      eb.val(MESSAGE_STATUS.queued).as('status'),
      eb.val(s.queued ? 1 : 0).as('queued'),
      eb.val(s.sendAt).as('next_attempt_at'),
      eb.val(s.now).as('updated_at'),
    ])
    .where('c.address_book_id', '=', s.bookId)
    .where('c.id', '>', s.afterId)
    .where('c.status', '=', CONTACT_STATUS.active)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('email_blacklist as b').select('b.email').where('b.account_id', '=', s.accountId).whereRef('b.email', '=', 'c.email'))))
  if (upTo !== undefined) source = source.where('c.id', '<=', upTo)
  const result = await db
    .insertInto('messages')
    .columns(['campaign_id', 'account_id', 'contact_id', 'address_book_id', 'address', 'variables', 'status', 'queued', 'next_attempt_at', 'updated_at'])
    .expression(source)
    .onConflict((oc) => oc.columns(['campaign_id', 'channel', 'address']).doNothing())
    .executeTakeFirst()
  return { copied: Number(result.numInsertedOrUpdatedRows ?? 0), lastId: upTo }
}

/**
 * Runs a query in the caller's transaction with PostgreSQL's bitmap scans off, then puts the setting back. Right
 * after a large import, before autovacuum analyzes the table, PostgreSQL takes a list of 1,000,000 contacts for a
 * few hundred and reads all of it in a bitmap scan to sort it, to find the 5,000th id in a batch: 404 ms per batch
 * (80 s for the list's copy) where the index gives that id in order in 1 ms. SQLite plans it from the index.
 */
async function withoutBitmapScans<T>(db: Kysely<Database>, query: () => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return query()
  const { rows } = await sql<{ was: string }>`select current_setting('enable_bitmapscan') as was, set_config('enable_bitmapscan', 'off', true)`.execute(db)
  const result = await query()
  await sql`select set_config('enable_bitmapscan', ${rows[0]!.was}, true)`.execute(db)
  return result
}

/** The one message of a test campaign. */
export async function insertMessage(
  db: Kysely<Database>,
  m: { campaignId: number; accountId: number; email: string; variables: string; sendAt: number; now: number },
): Promise<void> {
  await db
    .insertInto('messages')
    .values({ campaign_id: m.campaignId, account_id: m.accountId, address: m.email, variables: m.variables, queued: 1, next_attempt_at: m.sendAt, updated_at: m.now })
    .execute()
}

/** A number priced at creation (SMS: services/sms/campaigns.ts; Viber: services/viber/campaigns.ts). */
export interface NewSmsMessage {
  phone: string
  variables: string
  bookId: number | null
  country: string | null
  parts: number
  priceMicros: number
  /** An SMS sent instead of this Viber message */
  fallbackOf?: number
}

/**
 * Stores a campaign's messages to numbers, `queued` when the dispatcher may take them: at `sendAt`, or spread
 * evenly over the `spreadMs` after it (a Viber campaign's stretch_time), in the order given.
 */
export async function insertSmsMessages(
  db: Kysely<Database>,
  c: { campaignId: number; accountId: number; queued: boolean; sendAt: number; now: number; channel?: 'sms' | 'viber'; spreadMs?: number },
  messages: readonly NewSmsMessage[],
): Promise<void> {
  const spread = c.spreadMs ?? 0
  // 1000 rows × 13 values stays under PostgreSQL's 65,535 parameters and SQLite's 32,766.
  for (let i = 0; i < messages.length; i += 1000) {
    const rows = messages.slice(i, i + 1000).map((m, j) => ({
      campaign_id: c.campaignId,
      account_id: c.accountId,
      address_book_id: m.bookId,
      address: m.phone,
      channel: c.channel ?? 'sms',
      variables: m.variables,
      country: m.country,
      parts: m.parts,
      price_micros: m.priceMicros,
      fallback_of: m.fallbackOf ?? null,
      queued: c.queued ? 1 : 0,
      next_attempt_at: c.sendAt + Math.floor(((i + j) * spread) / messages.length),
      updated_at: c.now,
    }))
    await db.insertInto('messages').values(rows).execute()
  }
}

/** A claimed message: its attempts count the claim that took it. */
export type ClaimedMessage = MessageRow

/** A claim of messages: `token` owns their leases, to renew them and to record their results. */
export interface MessageLease {
  token: string
  ids: readonly number[]
}

/** An account met by a claim's walk (accountsInTurn), and whether it has a message to claim now. */
export interface AccountInTurn {
  accountId: number
  due: boolean
}

/**
 * The accounts with queued messages of the channel, in turn after `after` (an account id): those above it in id
 * order, then from the first up to `after` itself, `max` at most. One probe of messages_due_by_account (migration
 * 0018) finds each next account, and one more says whether it has a due message whose lease is free, so the walk
 * costs the same whatever the accounts queued: never a read of every due row.
 */
export async function accountsInTurn(db: Kysely<Database>, walk: { channel: CampaignChannel; now: number; after: number; max: number }): Promise<AccountInTurn[]> {
  const rows = await accountsInTurnQuery.execute(db, walk)
  return rows.map((row) => ({ accountId: Number(row.account_id), due: row.due !== null }))
}

// Compiled once, and on PostgreSQL planned once per connection: building and compiling it cost ~0.3 ms of the
// worker's CPU per claim (6 µs a message), and planning it ~0.5 ms of PostgreSQL's.
const accountsInTurnQuery = prepareQuery<{ channel: CampaignChannel; now: number; after: number; max: number }, { account_id: number | string; due: number | string | null }>(
  (db, param) => {
    const queued = sql`m.queued = 1 and m.channel = ${param('channel')}`
    const nextAfter = (account: RawBuilder<unknown>) => sql`(select m.account_id from messages m where ${queued} and m.account_id > ${account} order by m.account_id limit 1)`
    const max = sql`cast(${param('max')} as integer)`
    const after = sql`cast(${param('after')} as bigint)`
    const now = sql`cast(${param('now')} as bigint)`
    // `due` is the account's first claimable message, in the index's order: as an EXISTS, PostgreSQL chose to look
    // for one in a scan of the table, which reads all of it for an account whose messages are all leased or later.
    const query = sql<{ account_id: number | string; due: number | string | null }>`
      with recursive
        later(account_id, step) as (
          select ${nextAfter(after)}, 1
          union all
          select ${nextAfter(sql`later.account_id`)}, step + 1 from later where later.account_id is not null and step < ${max}
        ),
        earlier(account_id, step) as (
          select ${nextAfter(sql`cast(-1 as bigint)`)}, 1
          union all
          select ${nextAfter(sql`earlier.account_id`)}, step + 1 from earlier where earlier.account_id is not null and earlier.account_id < ${after} and step < ${max}
        ),
        walk(account_id, turn) as (
          select account_id, step from later where account_id is not null
          union all
          select account_id, ${max} + step from earlier where account_id is not null and account_id <= ${after}
        )
      select walk.account_id, (
        select m.id from messages m
        where ${queued} and m.account_id = walk.account_id and m.next_attempt_at <= ${now} and (m.locked_until is null or m.locked_until < ${now})
        order by m.next_attempt_at, m.id limit 1
      ) as due
      from walk order by walk.turn limit ${max}`
    return { compile: () => query.compile(db) }
  },
)

/** Up to `limit` due messages of one account, taken in its turn. */
export interface AccountTurn {
  accountId: number
  limit: number
}

/**
 * Claims due messages, leased to `token` until `leaseUntil`: the accounts' in the order of `turns`, each up to its
 * own limit and in due order (next_attempt_at, id), `limit` in all. So the first account fills the batch if it has
 * enough, and the accounts after it fill what it leaves. PostgreSQL skips rows another worker holds; SQLite has one
 * writer. Each account's rows come from messages_due_by_account in order; an account after the batch is full is not
 * read (the union is read lazily).
 */
export async function claimTurns(
  db: Kysely<Database>,
  claim: { channel: CampaignChannel; now: number; limit: number; leaseUntil: number; token: string; turns: readonly AccountTurn[] },
): Promise<ClaimedMessage[]> {
  if (claim.turns.length === 0 || claim.limit <= 0) return []
  const turnOf = (turn: AccountTurn, i: number) => {
    const due = db
      .selectFrom('messages')
      .select('id')
      .where('queued', '=', 1)
      .where('channel', '=', claim.channel)
      .where('account_id', '=', turn.accountId)
      .where('next_attempt_at', '<=', claim.now)
      .where(leaseFree(claim.now))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(Math.min(turn.limit, claim.limit))
    return db.selectFrom(skippingLocked(due, db).as(`turn${i}`)).select('id')
  }
  const [first, ...rest] = claim.turns.map(turnOf)
  const inTurn = rest.reduce((union, turn) => union.unionAll(turn), first!)
  const rows = await db
    .updateTable('messages')
    .set((eb) => ({ locked_until: claim.leaseUntil, lease_token: claim.token, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', db.selectFrom(inTurn.as('turns')).select('id').limit(claim.limit))
    .returningAll()
    .execute()
  return rows.map(toMessage).sort((a, b) => a.id - b.id)
}

/** Extends the lease of the claim's messages it still holds to `leaseUntil`; returns how many it holds. */
export async function renewLease(db: Kysely<Database>, lease: MessageLease, leaseUntil: number): Promise<number> {
  let held = 0
  for (let i = 0; i < lease.ids.length; i += 500) {
    const result = await heldBy(db, lease, lease.ids.slice(i, i + 500)).set({ locked_until: leaseUntil }).executeTakeFirst()
    held += Number(result.numUpdatedRows)
  }
  return held
}

export type MessageOutcome =
  | { id: number; kind: 'sent'; captured: boolean }
  /** An SMS the SMSC took: sent, delivered when the receipts of all its parts say so (its parts' ids: repos/sms-parts.ts). */
  | { id: number; kind: 'submitted'; captured: boolean }
  /** A Viber message the provider took (its id there): sent, waiting for reports until its live time ends (`until`). */
  | { id: number; kind: 'awaiting'; captured: boolean; providerId: string; until: number }
  | { id: number; kind: 'retry'; error: string; retryAt: number }
  | { id: number; kind: 'final'; status: number; error: string }

/**
 * Records the outcomes of one claim and returns the ids it recorded: rows whose lease another claim took
 * (this worker stalled past its lease) are left to their new holder, and the caller makes no events for them.
 */
export async function recordOutcomes(db: Kysely<Database>, lease: MessageLease, outcomes: readonly MessageOutcome[], now: number): Promise<Set<number>> {
  const recorded = new Set<number>()
  const update = async (ids: number[], change: UpdateObject<Database, 'messages'>) => {
    const rows = await heldBy(db, lease, ids).set({ ...change, locked_until: null, lease_token: null, updated_at: now }).returning('id').execute()
    for (const row of rows) recorded.add(Number(row.id))
  }
  // Successes share every value (an email's relay id is our own Message-ID; an SMS's part ids are in sms_parts):
  // one statement for many rows.
  for (const [kind, status] of [['sent', MESSAGE_STATUS.delivered], ['submitted', MESSAGE_STATUS.sent]] as const) {
    for (const captured of [false, true]) {
      const ids = outcomes.filter((o) => o.kind === kind && o.captured === captured).map((o) => o.id)
      for (let i = 0; i < ids.length; i += 500) {
        await update(ids.slice(i, i + 500), { status, queued: 0, sent_at: now, last_error: null, provider_id: captured ? CAPTURED : null })
      }
    }
  }
  // Each has its own provider id: one statement per 500 rows of the same live time, the ids in a CASE.
  const awaiting = outcomes.filter((o) => o.kind === 'awaiting')
  for (const until of new Set(awaiting.map((o) => o.until))) {
    const group = awaiting.filter((o) => o.until === until)
    for (let i = 0; i < group.length; i += 500) {
      const chunk = group.slice(i, i + 500)
      await update(
        chunk.map((o) => o.id),
        {
          status: MESSAGE_STATUS.sent,
          queued: 0,
          sent_at: now,
          next_attempt_at: until,
          last_error: null,
          provider_id: sql<string>`case id ${sql.join(chunk.map((o) => sql`when ${o.id} then ${o.captured ? CAPTURED : o.providerId}`), sql` `)} end`,
        },
      )
    }
  }
  for (const o of outcomes) {
    if (o.kind === 'retry') await update([o.id], { status: MESSAGE_STATUS.retrying, next_attempt_at: o.retryAt, last_error: o.error })
    else if (o.kind === 'final') await update([o.id], { status: o.status, queued: 0, last_error: o.error })
  }
  return recorded
}

/** The rows among `ids` the claim still holds: the fence of every write a lease holder makes. */
function heldBy(db: Kysely<Database>, lease: MessageLease, ids: readonly number[]) {
  return db.updateTable('messages').where('id', 'in', [...ids]).where('lease_token', '=', lease.token).where('queued', '=', 1)
}

/** Whether any message of the campaign was taken by a sender (tried, sent or ended otherwise). */
export async function hasStarted(db: Kysely<Database>, campaignId: number): Promise<boolean> {
  const row = await db
    .selectFrom('messages')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where((eb) => eb.or([eb('attempts', '>', 0), eb('status', '!=', MESSAGE_STATUS.queued)]))
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Whether any message of the campaign may still be sent: one index probe, asked after every batch. */
export async function hasUnfinished(db: Kysely<Database>, campaignId: number): Promise<boolean> {
  const row = await db.selectFrom('messages').select('id').where('campaign_id', '=', campaignId).where('status', 'in', [...UNFINISHED]).limit(1).executeTakeFirst()
  return row !== undefined
}

/** Ends the unsent messages of a canceled or rejected campaign as "not sent"; a batch in flight records its own. */
export async function endUnsent(db: Kysely<Database>, campaignId: number, now: number): Promise<number> {
  const result = await db
    .updateTable('messages')
    .set({ status: MESSAGE_STATUS.notSent, queued: 0, updated_at: now })
    .where('campaign_id', '=', campaignId)
    .where('status', 'in', [...UNFINISHED])
    .where(leaseFree(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Removes the campaign's `count` messages copied last: recipients the balance could not pay for, dropped in the
 * transaction that copied them, so they were never sendable.
 */
export async function dropLastCopied(db: Kysely<Database>, campaignId: number, count: number): Promise<void> {
  const last = db.selectFrom('messages').select('id').where('campaign_id', '=', campaignId).orderBy('id', 'desc').limit(count)
  await db.deleteFrom('messages').where('id', 'in', last).execute()
}

/** Lets the dispatcher take the messages of a campaign held for moderation. */
export async function releaseHeld(db: Kysely<Database>, campaignId: number, now: number): Promise<void> {
  await db.updateTable('messages').set({ queued: 1, updated_at: now }).where('campaign_id', '=', campaignId).where('status', '=', MESSAGE_STATUS.queued).where('queued', '=', 0).execute()
}

export async function reschedule(db: Kysely<Database>, campaignId: number, sendAt: number, now: number): Promise<void> {
  await db.updateTable('messages').set({ next_attempt_at: sendAt, updated_at: now }).where('campaign_id', '=', campaignId).where('status', '=', MESSAGE_STATUS.queued).execute()
}
