// Submitted SMS parts and their delivery receipts. The SMSC may send a receipt before the worker has stored the
// submit's answer (both travel on one connection, but the answer is recorded with its batch): whichever comes
// first creates the part's row, the second completes it, and a message is settled once it has its parts' ids
// and their final receipts — so a receipt is never lost to that race.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { MESSAGE_STATUS } from './messages.js'

/** Receipt states that end a part (delivery/sms/channel.ts DeliveryReceipt). */
const FAILED_STATES = ['undeliverable', 'expired', 'rejected', 'deleted', 'unknown'] as const
/** States on the way (DeliveryReceipt's `final` is false): they never replace a stored state. */
const INTERMEDIATE_STATES = ['accepted', 'enroute']

export interface ReceiptRecord {
  providerId: string
  state: string
  final: boolean
  error?: string
  at: number
}

/** Records the SMSC's ids of submitted messages' parts, then settles those whose receipts came first. */
export async function recordSubmittedParts(db: Kysely<Database>, submitted: readonly { messageId: number; providerIds: readonly string[] }[], now: number): Promise<void> {
  const rows = submitted.flatMap((s) => s.providerIds.map((id) => ({ provider_id: id, message_id: s.messageId, created_at: now }))).sort(byProviderId)
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('sms_parts')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) => oc.column('provider_id').doUpdateSet((eb) => ({ message_id: eb.ref('excluded.message_id') })))
      .execute()
  }
  await settleMessages(db, submitted.map((s) => s.messageId), now)
}

/**
 * Stores receipts (a final state is never replaced by a later intermediate one) and settles the messages they
 * complete; returns how many receipts belonged to a known message. A batch (up to 1,000 from the channel) is one
 * statement, not one per receipt: on SQLite a statement built per receipt was 9 % of the server's CPU in a
 * 50,000-number campaign (docs/benchmarks.md, "SMS campaigns").
 */
export async function recordReceipts(db: Kysely<Database>, receipts: readonly ReceiptRecord[], now: number): Promise<number> {
  // Each part once (PostgreSQL refuses to update a row twice in one INSERT … ON CONFLICT), with what storing its
  // receipts one after the other would leave: the last final one, or else the first.
  const kept = new Map<string, ReceiptRecord>()
  for (const r of receipts) if (r.final || !kept.has(r.providerId)) kept.set(r.providerId, r)
  const rows = [...kept.values()].map((r) => ({ provider_id: r.providerId, state: r.state, error: r.error ?? null, received_at: r.at, created_at: now })).sort(byProviderId)
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('sms_parts')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) =>
        oc
          .column('provider_id')
          .doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), error: eb.ref('excluded.error'), received_at: eb.ref('excluded.received_at') }))
          .where((eb) => eb.or([eb('sms_parts.state', 'is', null), eb('excluded.state', 'not in', INTERMEDIATE_STATES)])),
      )
      .execute()
  }
  const known: { message_id: number | null }[] = []
  for (let i = 0; i < rows.length; i += 1000) {
    const ids = rows.slice(i, i + 1000).map((r) => r.provider_id)
    known.push(...(await db.selectFrom('sms_parts').select('message_id').where('provider_id', 'in', ids).where('message_id', 'is not', null).execute()))
  }
  await settleMessages(db, [...new Set(known.map((k) => Number(k.message_id)))], now)
  return known.length
}

/**
 * Parts in one order whoever writes them (the batch that submitted them, the receipts): two transactions
 * upserting the same parts then lock them in that order, and cannot deadlock each waiting for the other.
 */
function byProviderId(a: { provider_id: string }, b: { provider_id: string }): number {
  return a.provider_id < b.provider_id ? -1 : a.provider_id > b.provider_id ? 1 : 0
}

/**
 * Moves sent messages whose parts all have a final receipt: delivered (2) when every part was, otherwise
 * unavailable (8) with the receipt's state. Only sent messages move: one ended otherwise stays as it is.
 */
async function settleMessages(db: Kysely<Database>, messageIds: readonly number[], now: number): Promise<void> {
  for (let i = 0; i < messageIds.length; i += 500) {
    const ids = messageIds.slice(i, i + 500)
    const messages = await db.selectFrom('messages').select(['id', 'parts']).where('id', 'in', ids).where('status', '=', MESSAGE_STATUS.sent).execute()
    if (messages.length === 0) continue
    const parts = await db.selectFrom('sms_parts').select(['message_id', 'state', 'error']).where('message_id', 'in', messages.map((m) => m.id)).execute()
    const partsOf = new Map<number, typeof parts>()
    for (const part of parts) {
      const own = partsOf.get(Number(part.message_id))
      if (own) own.push(part)
      else partsOf.set(Number(part.message_id), [part])
    }
    const delivered: number[] = []
    for (const message of messages) {
      const own = partsOf.get(Number(message.id)) ?? []
      const failed = own.find((p) => (FAILED_STATES as readonly (string | null)[]).includes(p.state))
      if (failed) {
        const error = `${failed.state}${failed.error ? ` (err:${failed.error})` : ''}`
        await db.updateTable('messages').set({ status: MESSAGE_STATUS.unavailable, last_error: error, updated_at: now }).where('id', '=', message.id).where('status', '=', MESSAGE_STATUS.sent).execute()
      } else if (own.filter((p) => p.state === 'delivered').length >= Number(message.parts ?? 1)) {
        delivered.push(Number(message.id))
      }
    }
    if (delivered.length > 0) {
      await db.updateTable('messages').set({ status: MESSAGE_STATUS.delivered, updated_at: now }).where('id', 'in', delivered).where('status', '=', MESSAGE_STATUS.sent).execute()
    }
  }
}

/** Deletes receipts stored before `before` that never met their submit (its campaign deleted, or another SMSC's). */
export async function purgeUnmatchedReceipts(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db.deleteFrom('sms_parts').where('message_id', 'is', null).where('created_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
