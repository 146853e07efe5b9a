// One round of chaos: an email, an SMS and a Viber campaign created over HTTP through the API processes, then the
// round's disruptions, each when its share of the messages reached their peers, then the wait for the end: every
// campaign sent and every message in a final status. What happened and what was measured goes into `Measures`.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { CAMPAIGN_STATUS } from '../../../src/storage/repos/campaigns.js'
import { MESSAGE_STATUS } from '../../../src/storage/repos/messages.js'
import { HTML } from '../campaigns.js'
import { CALL_WITHIN_MS, isErrorBody } from './client.js'
import type { Disruption } from './plan.js'
import { RATE_PER_SECOND, type World } from './world.js'

/**
 * A round's messages must reach their peers and end within a minute more than 3 times what sending takes at
 * RATE_PER_SECOND (CI's round: 4 s): room for the restarts (5-12 s on a loaded machine), the 2 s leases and the
 * outage pacing (up to 10 s).
 */
function roundWithinMs(size: ReturnType<typeof roundSize>): number {
  return 60_000 + 3 * 1000 * Math.max(size.emails / RATE_PER_SECOND.email, size.sms / RATE_PER_SECOND.sms, size.viber / RATE_PER_SECOND.viber)
}
/** A process or the database back must serve again within this. */
const RECOVER_WITHIN_MS = 60_000
/** Final statuses of a message that went: the relay took it (sent) or its report said delivered. */
export const WENT: readonly number[] = [MESSAGE_STATUS.sent, MESSAGE_STATUS.delivered]

export interface RoundCampaigns {
  email: { id: number; emails: string[] }
  sms: { id: number; numbers: string[] }
  viber: { id: number; numbers: string[] }
}

export interface OutageProbe {
  process: string
  status: number | string
  /** The body was SendPulse's `{error_code, message}` with error_code 503. */
  errorBody: boolean
  ms: number
}

export interface Measures {
  /** What was done, in order: "worker-1 killed at 34 % (down 812 ms, serving again 3.1 s after its start)". */
  events: string[]
  kills: number
  /** Kills of processes that send messages, and database restarts: what may send a batch twice. */
  dispatchInterruptions: number
  probes: OutageProbe[]
  /** After the database came back: until every API process answered 200, and until messages went again. */
  apiBackMs: number[]
  sendingBackMs: number[]
  /** Time to start a killed process again until it said it serves. */
  restartMs: number[]
  /** Rounds whose sending stopped before all of their disruptions happened. */
  stalls: string[]
}

export function emptyMeasures(): Measures {
  return { events: [], kills: 0, dispatchInterruptions: 0, probes: [], apiBackMs: [], sendingBackMs: [], restartMs: [], stalls: [] }
}

/** Recipients of each channel in a round: `scale` 1 is CI's size. */
export function roundSize(scale: number) {
  return { emails: 400 * scale, sms: 150 * scale, viber: 150 * scale }
}

export async function runRound(world: World, round: number, scale: number, disruptions: Disruption[], measures: Measures): Promise<RoundCampaigns> {
  const size = roundSize(scale)
  const campaigns = await createCampaigns(world, round, size)
  const total = size.emails + size.sms + size.viber
  const base = reached(world)
  const progress = () => (reached(world) - base) / total
  const withinMs = roundWithinMs(size)

  // A killed process starts again in the background (through tsx: 1.5-17 s seen on a loaded 2-core machine): the next moment may come meanwhile.
  const restarting: Promise<void>[] = []
  try {
    for (const disruption of disruptions) {
      const deadline = Date.now() + withinMs
      while (progress() < disruption.at && Date.now() < deadline) await sleep(20)
      if (progress() < disruption.at) {
        // The checks say what was lost; the round's other disruptions would only add noise.
        measures.stalls.push(`round ${round}: sending stalled at ${Math.round(progress() * 100)} % before ${disruption.action} at ${Math.round(disruption.at * 100)} %`)
        break
      }
      const at = `${Math.round(progress() * 100)} %`
      if (disruption.action === 'restart-database') await restartDatabase(world, disruption, measures, at)
      else restarting.push((await killThenRestart(world, disruption, measures, at)).restarted)
    }
  } finally {
    await Promise.all(restarting)
  }
  await waitForEnd(world, campaigns, withinMs)
  return campaigns
}

/** Messages that reached their peers so far, of every channel (sent twice counts twice). */
function reached(world: World): number {
  return world.sink.received.length + world.smsc.submitCount + world.vonage.accepted
}

async function createCampaigns(world: World, round: number, size: ReturnType<typeof roundSize>): Promise<RoundCampaigns> {
  const { email, sms, viber } = world
  // Over HTTP through the API processes, as a client would (on SQLite the one `serve` must be the only writer).
  const api = world.apis[0]!.url
  const post = async (token: string, path: string, body: unknown) => {
    const answer = await fetch(`${api}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const text = await answer.text()
    assert.equal(answer.status, 200, `${path}: ${text}`)
    return JSON.parse(text) as Record<string, unknown>
  }
  const bookId = (await post(email.account.token, '/addressbooks', { bookName: `round ${round}` })).id as number
  const emails = Array.from({ length: size.emails }, (_, i) => `r${round}.reader${i}@example.com`)
  for (let i = 0; i < emails.length; i += 500) {
    await post(email.account.token, `/addressbooks/${bookId}/emails`, { emails: emails.slice(i, i + 500).map((e) => ({ email: e, variables: { name: 'Reader' } })) })
  }
  const numbers = (count: number, channel: number) => Array.from({ length: count }, (_, i) => String(447000000000 + channel * 100_000_000 + round * 1_000_000 + i))
  const smsNumbers = numbers(size.sms, 1)
  const viberNumbers = numbers(size.viber, 2)

  const emailCampaign = await post(email.account.token, '/campaigns', {
    sender_name: 'News',
    sender_email: email.sender,
    subject: `Round ${round} for {{name}}`,
    body: Buffer.from(HTML).toString('base64'),
    list_id: bookId,
  })
  const smsCampaign = await post(sms.account.token, '/sms/send', { sender: sms.sender, body: 'Sale today', phones: smsNumbers })
  const viberCampaign = await post(viber.account.token, '/viber', {
    task_name: `Round ${round}`,
    message_type: 2,
    sender_id: viber.senderId,
    message_live_time: 3600,
    send_date: 'now',
    message: 'Sale today',
    recipients: viberNumbers.map(Number),
  })
  return {
    email: { id: emailCampaign.id as number, emails },
    sms: { id: smsCampaign.campaign_id as number, numbers: smsNumbers },
    viber: { id: (viberCampaign.data as { task_id: number }).task_id, numbers: viberNumbers },
  }
}

/** Kills the process at once; `restarted` settles once it runs again, started `downMs` later. */
async function killThenRestart(world: World, disruption: Disruption, measures: Measures, at: string): Promise<{ restarted: Promise<void> }> {
  const kind = disruption.action === 'kill-worker' ? world.workers : world.apis
  const target = kind[disruption.target % kind.length]!
  await target.kill()
  measures.kills++
  // A worker sends; on SQLite the one `serve` does too.
  if (target.role !== 'api') measures.dispatchInterruptions++
  const restarted = (async () => {
    await sleep(disruption.downMs)
    const started = Date.now()
    // A start that fails is a finding, reported with the others (not an unhandled rejection meanwhile).
    const failed = await target.start().then(() => undefined, (err: unknown) => String(err))
    if (failed) return void measures.stalls.push(`${target.name} killed at ${at} could not start again: ${failed}`)
    measures.restartMs.push(Date.now() - started)
    measures.events.push(`${target.name} killed at ${at}, down ${disruption.downMs} ms, running again ${seconds(Date.now() - started)} after its start`)
  })()
  return { restarted }
}

/**
 * Stops PostgreSQL (every process loses its connections at once), asks each API process what it answers meanwhile,
 * starts it again and measures how long until the API answers and messages go again.
 */
async function restartDatabase(world: World, disruption: Disruption, measures: Measures, at: string): Promise<void> {
  const postgres = world.postgres!
  const recordedBefore = await recordedAsWent(world)
  const halted = Date.now()
  await postgres.halt()
  measures.dispatchInterruptions += world.dispatchers
  const token = world.email.account.token
  try {
    // The API processes up at this moment (one may be starting again after a kill).
    measures.probes.push(...(await Promise.all(world.apis.filter((p) => p.ready()).map((p) => probe(p.name, p.url, token)))))
    await sleep(Math.max(0, disruption.downMs - (Date.now() - halted)))
  } finally {
    await postgres.start()
  }
  const back = Date.now()
  const sendingAgain = (async () => {
    // Sends claimed before the outage may still reach the peers meanwhile: a message recorded is the dispatcher back.
    while ((await recordedAsWent(world).catch(() => recordedBefore)) <= recordedBefore && Date.now() - back < RECOVER_WITHIN_MS) await sleep(50)
    return Date.now() - back
  })()
  measures.apiBackMs.push(
    Math.max(
      ...(await Promise.all(
        world.apis.filter((p) => p.ready()).map(async (p) => {
          while (Date.now() - back < RECOVER_WITHIN_MS && (await probe(p.name, p.url, token)).status !== 200) await sleep(50)
          return Date.now() - back
        }),
      )),
    ),
  )
  measures.sendingBackMs.push(await sendingAgain)
  measures.events.push(
    `PostgreSQL stopped at ${at} for ${seconds(back - halted)}: the API answered ${measures.probes.map((p) => `${p.process} ${p.status} in ${p.ms} ms`).join(', ')}; ` +
      `back: API ${seconds(measures.apiBackMs.at(-1)!)}, sending ${seconds(measures.sendingBackMs.at(-1)!)}`,
  )
}

/** Messages recorded as gone, of every campaign. */
async function recordedAsWent(world: World): Promise<number> {
  const row = await world.setup.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', WENT).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** GET /addressbooks: its status (or the connection error), whether a 503 had the error body, and how long it took. */
async function probe(name: string, url: string, token: string): Promise<OutageProbe> {
  const started = Date.now()
  try {
    const answer = await fetch(`${url}/addressbooks`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(CALL_WITHIN_MS) })
    const text = await answer.text()
    return { process: name, status: answer.status, errorBody: isErrorBody(text, 503), ms: Date.now() - started }
  } catch (err) {
    return { process: name, status: err instanceof Error ? err.name : String(err), errorBody: false, ms: Date.now() - started }
  }
}

/** Every campaign of the round sent, each message in a final status (Viber's once its report came), none leased. */
async function waitForEnd(world: World, campaigns: RoundCampaigns, withinMs: number): Promise<void> {
  const db = world.setup.deps.db
  const ids = [campaigns.email.id, campaigns.sms.id, campaigns.viber.id]
  const deadline = Date.now() + withinMs
  for (;;) {
    const statuses = await db.selectFrom('campaigns').select('status').where('id', 'in', ids).execute()
    const open = await db
      .selectFrom('messages')
      .select('id')
      .where('campaign_id', 'in', ids)
      .where((eb) => eb.or([eb('queued', '!=', 0), eb('status', 'not in', WENT), eb.and([eb('channel', '=', 'viber'), eb('status', '!=', MESSAGE_STATUS.delivered)])]))
      .limit(1)
      .execute()
    if (statuses.every((c) => c.status === CAMPAIGN_STATUS.sent) && open.length === 0) return
    if (Date.now() > deadline) return
    await sleep(200)
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
