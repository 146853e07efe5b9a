// Open-pixel and click hits, a batch at a time (hit-batches.ts gathers them): each answered as it was alone (the
// pixel: whether its message exists; a click: where the message's link leads), and what they cause written in
// one transaction for the whole batch, in the order the hits came: a message's first open (with the reader's
// country) or first click, the clicks per link of the campaign, and the events (API.md 6) `open` and `redirect`.
//
// One hit alone took two reads and a transaction of one to four statements, each query built by Kysely: Kysely and
// SQLite were 48 % of the server's time at 1,800 hits a second (docs/benchmarks.md, "Tracking hits"). A batch reads
// its messages in one query and writes with one statement per kind of change, whatever its size.
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import { commitWithoutWaitingForDisk } from '../storage/repos/lazy-commit.js'
import { compileTemplate } from '../lib/render.js'
import { countryOfIp } from './geoip.js'
import { preparedCampaign } from '../services/email/prepared-campaigns.js'
import { messageEventSource, recordMessageEventsInOrder, type TimedMessageEvent } from '../services/events/events.js'
import type { Deps } from '../services/types.js'

/** The pixel of a message was loaded from `ip` at `at` (epoch ms). */
export interface OpenHit {
  kind: 'open'
  messageId: number
  ip: string
  at: number
}

/** Link `index` of a message was followed. */
export interface ClickHit {
  kind: 'click'
  messageId: number
  index: number
  at: number
}

export type Hit = OpenHit | ClickHit

/** An open's: whether its message exists. A click's: the redirect target, undefined when there is none. */
export type HitAnswer = boolean | string | undefined

type TrackedMessage = messagesRepo.TrackedMessage

/** A hit that changes something, with what it found. */
type Effect = { hit: OpenHit; message: TrackedMessage } | { hit: ClickHit; message: TrackedMessage; link: string; target: string }

/** Campaigns hold at most this many rows here (a click needs its campaign's links): those being read are few. */
const MAX_CAMPAIGNS = 64

/**
 * Campaign rows of recent clicks, kept while unchanged (the same updatedAt, which the batch's query reads): the
 * row holds the HTML, too big to read again for every click.
 */
export class CampaignRows {
  private readonly rows = new Map<number, campaignsRepo.CampaignRow>()

  async get(deps: Deps, id: number, updatedAt: number): Promise<campaignsRepo.CampaignRow | undefined> {
    const cached = this.rows.get(id)
    if (cached && cached.updatedAt === updatedAt) return cached
    const row = await campaignsRepo.findCampaignById(deps.db, id)
    if (!row) return undefined
    if (this.rows.size >= MAX_CAMPAIGNS) this.rows.clear()
    this.rows.set(id, row)
    return row
  }
}

/** Answers every hit of the batch, once what they cause is committed (an error when it could not be). */
export async function answerAndRecord(deps: Deps, campaigns: CampaignRows, hits: readonly Hit[]): Promise<HitAnswer[]> {
  const found = await messagesRepo.findTrackedMessages(deps.db, [...new Set(hits.map((h) => h.messageId))])
  const answers: HitAnswer[] = []
  const effects: Effect[] = []
  for (const hit of hits) {
    const message = found.get(hit.messageId)
    if (hit.kind === 'open') {
      answers.push(message !== undefined)
      if (message) effects.push({ hit, message })
      continue
    }
    const followed = message && (await followLink(deps, campaigns, message, hit.index))
    answers.push(followed?.target)
    if (message && followed) effects.push({ hit, message, ...followed })
  }
  await record(deps, effects)
  return answers
}

/** Link `index` of the message and where it leads; undefined when the message had no such link. */
async function followLink(deps: Deps, campaigns: CampaignRows, message: TrackedMessage, index: number): Promise<{ link: string; target: string } | undefined> {
  const campaign = await campaigns.get(deps, message.campaignId, message.campaignUpdatedAt)
  const prepared = campaign && preparedCampaign(campaign)
  const link = prepared === undefined || prepared instanceof Error ? undefined : prepared.links[index]
  if (link === undefined) return undefined
  const target = redirectable(personalised(link, message))
  return target === undefined ? undefined : { link, target }
}

/**
 * Writes what the hits change, as the hits one after the other would have: only a message's first open counts
 * (not one after an open or a click of the batch, which set opened_at, nor one the read found opened), only its
 * first click moves it; every click counts for its link and is an event. A message that another process
 * opened meanwhile keeps that first open: its open here is no event.
 */
async function record(deps: Deps, effects: readonly Effect[]): Promise<void> {
  const opens: messagesRepo.OpenChange[] = []
  const clicks: messagesRepo.ClickChange[] = []
  const linkClicks = new Map<string, { campaignId: number; link: string; clicks: number }>()
  const events: (TimedMessageEvent & { openOf?: number })[] = []
  const touched = new Map<number, 'opened' | 'clicked'>()
  for (const effect of effects) {
    const { message } = effect
    const before = touched.get(message.id)
    if (!('target' in effect)) {
      if (message.openedAt !== null || before !== undefined) continue
      const country = countryOfIp(effect.hit.ip) ?? null
      opens.push({ id: message.id, country, at: effect.hit.at })
      touched.set(message.id, 'opened')
      events.push({ action: 'open', source: sourceOf(message, { country }), now: effect.hit.at, openOf: message.id })
      continue
    }
    const { hit } = effect
    if (message.clickedAt === null && before !== 'clicked') {
      clicks.push({ id: message.id, at: hit.at })
      touched.set(message.id, 'clicked')
    }
    const key = `${message.campaignId} ${effect.link}`
    const counted = linkClicks.get(key)
    if (counted) counted.clicks++
    else linkClicks.set(key, { campaignId: message.campaignId, link: effect.link, clicks: 1 })
    events.push({ action: 'redirect', source: sourceOf(message, { link_url: effect.target }), now: hit.at })
  }
  if (opens.length === 0 && clicks.length === 0 && events.length === 0) return
  await deps.db.transaction().execute(async (tx) => {
    // Losing the hits of the last half second on a crash of the database is allowed (issue 19; lazy-commit.ts).
    await commitWithoutWaitingForDisk(tx)
    const opened = await messagesRepo.markOpened(tx, opens)
    await messagesRepo.markClicked(tx, clicks)
    await recordMessageEventsInOrder(tx, events.filter((e) => e.openOf === undefined || opened.has(e.openOf)))
    // Last: every click of a link waits for the row it locks (PostgreSQL) until this transaction ends.
    await campaignsRepo.countLinkClicks(tx, [...linkClicks.values()])
  })
}

function sourceOf(message: TrackedMessage, extra: Record<string, unknown>) {
  return messageEventSource(message, { id: message.campaignId, name: message.campaignName }, extra)
}

/**
 * The link as a Location header can carry it: a host in punycode, a path percent-encoded (`https://сайт.рф/путь`
 * would otherwise fail the response); undefined when it is no http(s) URL at all.
 */
function redirectable(link: string | undefined): string | undefined {
  if (link === undefined) return undefined
  try {
    const url = new URL(link)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** A link holding the recipient's variables (`?u={{email}}`) is rendered for them (redirectable() checks the result). */
function personalised(link: string, message: TrackedMessage): string | undefined {
  if (!link.includes('{{')) return link
  const render = compileTemplate(link, { escape: false })
  if (render instanceof Error) return undefined
  return render({ ...(JSON.parse(message.variables) as Record<string, unknown>), email: message.address }).trim()
}
