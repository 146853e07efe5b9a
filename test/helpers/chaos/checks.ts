// What must hold after the chaos, read from the database and from what the peers received. Each check adds what
// it found wrong to `failures` (all of them are reported, not just the first) and what it measured to `figures`.
import { setTimeout as sleep } from 'node:timers/promises'
import { sumBalanceMicros } from '../../../src/storage/repos/accounts.js'
import { CAMPAIGN_STATUS } from '../../../src/storage/repos/campaigns.js'
import { MESSAGE_STATUS } from '../../../src/storage/repos/messages.js'
import { keptCounts, recountedFromRows } from '../campaign-counts.js'
import type { ClientLog } from './client.js'
import { WENT, type Measures, type RoundCampaigns } from './round.js'
import type { World } from './world.js'

/**
 * The messages a dispatching process has in flight, the most one interruption may send twice
 * (dispatcher/email-driver.ts, sms-sender.ts, viber-sender.ts: 2 batches of 50, 200 and 200).
 */
const IN_FLIGHT = { email: 100, sms: 400, viber: 400 }
/** Webhook deliveries still queued after the last round must all be made within this (a dead worker's lease is 7 s). */
const WEBHOOKS_WITHIN_MS = 60_000

export interface Findings {
  failures: string[]
  figures: string[]
}

export async function checkAll(world: World, rounds: RoundCampaigns[], measures: Measures, client: ClientLog): Promise<Findings> {
  const found: Findings = { failures: [...measures.stalls], figures: [] }
  await checkMessages(world, rounds, measures, found)
  await checkWebhooks(world, rounds, found)
  await checkLedger(world, found)
  await checkClient(world, client, found)
  checkOutage(world, measures, found)
  const [kept, recounted] = [await keptCounts(world.setup.deps.db), await recountedFromRows(world.setup.deps.db)]
  if (kept.join() !== recounted.join()) found.failures.push(`campaign counts differ from a recount of the messages: ${JSON.stringify({ kept, recounted })}`)
  return found
}

/** Each recipient: one message row in a final status that went; it reached its peer at least once; twice only within the batches in flight. */
async function checkMessages(world: World, rounds: RoundCampaigns[], measures: Measures, found: Findings): Promise<void> {
  const db = world.setup.deps.db
  const emailArrivals = countBy(world.sink.received.flatMap((r) => r.envelopeTo))
  const smsArrivals = countBy(world.smsc.submits.filter((s) => s.status === 0).map((s) => s.destination))
  // client_ref is the message id (delivery/viber/vonage-request.ts).
  const viberArrivals = countBy(world.vonage.requests.filter((r) => r.status === 202).map((r) => String(r.body?.client_ref)))
  const duplicates = { email: 0, sms: 0, viber: 0 }

  for (const round of rounds) {
    const channels = [
      { channel: 'email' as const, id: round.email.id, expected: round.email.emails },
      { channel: 'sms' as const, id: round.sms.id, expected: round.sms.numbers },
      { channel: 'viber' as const, id: round.viber.id, expected: round.viber.numbers },
    ]
    for (const { channel, id, expected } of channels) {
      const campaign = await db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirst()
      if (campaign?.status !== CAMPAIGN_STATUS.sent) found.failures.push(`${channel} campaign ${id} ended in status ${campaign?.status}, not sent (${CAMPAIGN_STATUS.sent})`)
      const rows = await db.selectFrom('messages').select(['id', 'address', 'status', 'queued', 'locked_until']).where('campaign_id', '=', id).execute()
      const addresses = rows.map((r) => r.address).sort()
      if (addresses.join() !== [...expected].sort().join()) found.failures.push(`${channel} campaign ${id}: ${rows.length} message rows for ${expected.length} recipients, or other addresses`)
      const unfinished = rows.filter((r) => !WENT.includes(r.status) || r.queued !== 0 || r.locked_until !== null || (channel === 'viber' && r.status !== MESSAGE_STATUS.delivered))
      if (unfinished.length > 0) found.failures.push(`${channel} campaign ${id}: ${unfinished.length} messages not final, e.g. ${JSON.stringify(unfinished.slice(0, 3))}`)
      const arrivals = channel === 'email' ? emailArrivals : channel === 'sms' ? smsArrivals : viberArrivals
      const keys = channel === 'viber' ? rows.map((r) => String(r.id)) : expected
      const lost = keys.filter((k) => !arrivals.has(k))
      if (lost.length > 0) found.failures.push(`${channel} campaign ${id}: ${lost.length} recipients never reached the peer, e.g. ${lost.slice(0, 3).join(', ')}`)
      duplicates[channel] += keys.reduce((sum, k) => sum + Math.max(0, (arrivals.get(k) ?? 0) - 1), 0)
    }
  }
  for (const channel of ['email', 'sms', 'viber'] as const) {
    const bound = IN_FLIGHT[channel] * measures.dispatchInterruptions
    if (duplicates[channel] > bound) found.failures.push(`${channel}: ${duplicates[channel]} sent twice, more than the ${bound} in flight at ${measures.dispatchInterruptions} interruptions`)
  }
  found.figures.push(`sent twice (bound: in flight × ${measures.dispatchInterruptions} interruptions): email ${duplicates.email}, SMS ${duplicates.sms}, Viber ${duplicates.viber}`)
}

/**
 * Every event the database recorded for the webhook reached the receiver (at least once), each delivery ended as
 * delivered, and each email that went has exactly one `delivered` event.
 */
async function checkWebhooks(world: World, rounds: RoundCampaigns[], found: Findings): Promise<void> {
  const db = world.setup.deps.db
  const accountId = world.email.account.id
  const endpoint = await db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow()
  const deliveries = () => db.selectFrom('webhook_deliveries').select(['event_id', 'status']).where('endpoint_id', '=', endpoint.id).execute()
  const deadline = Date.now() + WEBHOOKS_WITHIN_MS
  while ((await deliveries()).some((d) => d.status !== 'delivered') && Date.now() < deadline) await sleep(200)

  const events = await db.selectFrom('events').select(['id', 'action', 'payload']).where('account_id', '=', accountId).execute()
  const made = await deliveries()
  const undelivered = made.filter((d) => d.status !== 'delivered')
  if (undelivered.length > 0) found.failures.push(`${undelivered.length} webhook deliveries not delivered: ${JSON.stringify(Object.fromEntries(countBy(undelivered.map((d) => d.status))))}`)
  const withDelivery = new Set(made.map((d) => Number(d.event_id)))
  const orphans = events.filter((e) => !withDelivery.has(Number(e.id)))
  if (orphans.length > 0) found.failures.push(`${orphans.length} events without a delivery to the webhook`)

  const received = countBy(world.hook.received.flatMap((d) => d.events.map((e) => String(e.id))))
  const lost = events.filter((e) => !received.has(String(e.id)))
  if (lost.length > 0) found.failures.push(`${lost.length} webhook events never reached the receiver, e.g. ${JSON.stringify(lost.slice(0, 3))}`)
  const duplicates = [...received.values()].reduce((sum, n) => sum + n - 1, 0)

  const deliveredEvents = countBy(events.filter((e) => e.action === 'delivered').map((e) => String((JSON.parse(e.payload) as { email?: unknown }).email)))
  const recipients = rounds.flatMap((r) => r.email.emails)
  const wrong = recipients.filter((email) => deliveredEvents.get(email) !== 1)
  if (wrong.length > 0) found.failures.push(`${wrong.length} emails without exactly one delivered event, e.g. ${wrong.slice(0, 3).map((e) => `${e}: ${deliveredEvents.get(e) ?? 0}`).join(', ')}`)
  found.figures.push(
    `webhook events: ${events.length} recorded (${JSON.stringify(Object.fromEntries(countBy(events.map((e) => e.action))))}), ${events.length - lost.length} received, ` +
      `${duplicates} received twice, in ${world.hook.received.length} requests`,
  )
}

/**
 * Per account: the balance is the credits less the write-offs plus the refunds; what was paid (write-offs less
 * refunds) is what its messages that went cost, campaign by campaign (services/sending/settlement.ts).
 */
async function checkLedger(world: World, found: Findings): Promise<void> {
  const db = world.setup.deps.db
  const paidTotal: string[] = []
  for (const [name, account] of [['email', world.email.account], ['sms', world.sms.account], ['viber', world.viber.account]] as const) {
    const entries = await db.selectFrom('ledger_entries').select(['kind', 'amount_micros']).where('account_id', '=', account.id).execute()
    const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((s, e) => s + Number(e.amount_micros), 0)
    const [credits, writeOffs, refunds] = [sum('credit'), -sum('write_off'), sum('refund')]
    const others = entries.filter((e) => !['credit', 'write_off', 'refund'].includes(e.kind))
    if (others.length > 0) found.failures.push(`${name}: unexpected ledger entries ${JSON.stringify(others)}`)
    const balance = await sumBalanceMicros(db, account.id)
    if (balance !== credits - writeOffs + refunds) found.failures.push(`${name}: balance ${balance} ≠ credits ${credits} − write-offs ${writeOffs} + refunds ${refunds}`)

    const campaigns = await db.selectFrom('campaigns').select(['id', 'price_micros', 'charged_micros']).where('account_id', '=', account.id).execute()
    let owedTotal = 0
    for (const campaign of campaigns) {
      const rows = await db.selectFrom('messages').select(['status', 'price_micros']).where('campaign_id', '=', campaign.id).execute()
      const owed = rows.filter((r) => r.status !== MESSAGE_STATUS.notSent).reduce((s, r) => s + Number(r.price_micros ?? campaign.price_micros), 0)
      owedTotal += owed
      if (Number(campaign.charged_micros) !== owed) found.failures.push(`${name} campaign ${campaign.id}: charged ${campaign.charged_micros}, its messages that went cost ${owed}`)
    }
    if (writeOffs - refunds !== owedTotal) found.failures.push(`${name}: paid ${writeOffs - refunds} (written off ${writeOffs}, refunded ${refunds}) ≠ ${owedTotal} owed for what went`)
    paidTotal.push(`${name} paid ${(writeOffs - refunds) / 1e6} (refunded ${refunds / 1e6})`)
  }
  found.figures.push(`ledger: ${paidTotal.join(', ')}`)
}

/** Every answer was a 200, a 503 with the error body or a dropped connection; what the client was told succeeded is stored. */
async function checkClient(world: World, client: ClientLog, found: Findings): Promise<void> {
  const db = world.setup.deps.db
  for (const failure of client.failures) found.failures.push(`client: ${failure}`)
  const accountId = world.email.account.id
  const books = new Map((await db.selectFrom('address_books').select(['id', 'name']).where('account_id', '=', accountId).execute()).map((b) => [Number(b.id), b.name]))
  for (const [id, name] of client.lists) if (books.get(id) !== name) found.failures.push(`client: list ${id} "${name}" was created, stored as ${books.get(id)}`)
  const contacts = new Set(
    (await db.selectFrom('contacts').select(['address_book_id', 'email']).where('account_id', '=', accountId).execute()).map((c) => `${c.address_book_id}/${c.email}`),
  )
  let told = 0
  for (const addition of client.additions) {
    const stored = addition.emails.filter((e) => contacts.has(`${addition.listId}/${e}`)).length
    if (addition.told) told += addition.emails.length
    if (addition.told ? stored !== addition.emails.length : stored !== 0 && stored !== addition.emails.length) {
      found.failures.push(`client: ${stored} of ${addition.emails.length} contacts stored of a call ${addition.told ? 'answered 200' : 'that failed'} (list ${addition.listId})`)
    }
  }
  found.figures.push(
    `client: ${client.calls} calls, ${client.ok} answered 200, ${client.unavailable} 503 (slowest ${client.slowest503Ms} ms), ${client.connectionErrors} connection errors; ` +
      `${client.lists.size} lists and ${told} contacts it was told were stored`,
  )
}

/** While PostgreSQL was away, every API process answered 503 with the error body, within the client's bound. */
function checkOutage(world: World, measures: Measures, found: Findings): void {
  if (!world.postgres) return
  if (measures.probes.length === 0) found.failures.push('the database was never restarted')
  for (const p of measures.probes) {
    if (p.status !== 503 || !p.errorBody) found.failures.push(`${p.process} answered ${p.status} while the database was away (error body: ${p.errorBody}) after ${p.ms} ms`)
  }
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}
