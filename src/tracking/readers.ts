// What readers do with a campaign email (ARCHITECTURE.md "Tracking and events"), besides opening it and following
// its links (hit-batches.ts, a batch at a time): unsubscribe (the page or the RFC 8058 one-click POST) and read its
// web version or the campaign's archived copy. Every token is checked; a tampered one finds nothing.
// An unsubscribe link expires TIDINGS_LINK_TTL_DAYS after its message was sent (the message row dates it, so
// links sent before this rule existed expire alike); opens, clicks and the web version never do: they change no
// consent, and a newsletter read a year later must still lead to its links.
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import { CONTACT_STATUS, setStatusOfIds } from '../storage/repos/contacts.js'
import { compileTemplate } from '../lib/render.js'
import { renderMessage } from '../delivery/email/campaign-content.js'
import { addressingOf, campaignIdOfToken, isLinkExpired, messageIdOfToken } from './message-links.js'
import { preparedCampaign } from '../services/email/prepared-campaigns.js'
import { messageEventSource, recordMessageEvents, type MessageEventSource } from '../services/events/events.js'
import { signingKey, verifyingKeys } from './signing-key.js'
import type { Deps } from '../services/types.js'

interface Found {
  message: messagesRepo.MessageRow
  campaign: campaignsRepo.CampaignRow
}

async function find(deps: Deps, token: string): Promise<Found | undefined> {
  const id = messageIdOfToken(await verifyingKeys(deps), token)
  return id === undefined ? undefined : findById(deps, id)
}

async function findById(deps: Deps, messageId: number): Promise<Found | undefined> {
  const message = await messagesRepo.findMessage(deps.db, messageId)
  const campaign = message && (await campaignsRepo.findCampaignById(deps.db, message.campaignId))
  return message && campaign ? { message, campaign } : undefined
}

function sourceOf(found: Found, extra?: Record<string, unknown>): MessageEventSource {
  return messageEventSource(found.message, found.campaign, extra)
}

export interface UnsubscribeTarget {
  email: string
  lang: string
  done: boolean
}

/** Undefined: no such message; 'expired': the link is too old to unsubscribe with (nothing changes). */
export type UnsubscribeAnswer = UnsubscribeTarget | 'expired' | undefined

/** When the message's links were issued: when it was sent (a message never sent was never read). */
function isUnsubscribeExpired(deps: Deps, found: Found): boolean {
  return isLinkExpired(deps.config, found.message.sentAt ?? found.campaign.createdAt, deps.now())
}

export async function unsubscribeTarget(deps: Deps, token: string): Promise<UnsubscribeAnswer> {
  const found = await find(deps, token)
  if (!found) return undefined
  const target = { email: found.message.address, lang: found.campaign.lang, done: found.message.unsubscribedAt !== null }
  return !target.done && isUnsubscribeExpired(deps, found) ? 'expired' : target
}

/** The reader leaves the list the message came from (contact status 4); the message counts as unsubscribed. */
export async function unsubscribe(deps: Deps, token: string): Promise<UnsubscribeAnswer> {
  const found = await find(deps, token)
  return found && unsubscribeFound(deps, found)
}

/** The same for a message already identified otherwise: by the mailto: address of its List-Unsubscribe. */
export async function unsubscribeMessage(deps: Deps, messageId: number): Promise<UnsubscribeAnswer> {
  const found = await findById(deps, messageId)
  return found && unsubscribeFound(deps, found)
}

async function unsubscribeFound(deps: Deps, found: Found): Promise<UnsubscribeTarget | 'expired'> {
  const target = { email: found.message.address, lang: found.campaign.lang, done: true }
  // An expired link changes nothing; it still says so when it was used in time.
  if (isUnsubscribeExpired(deps, found)) return found.message.unsubscribedAt !== null ? target : 'expired'
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    if (await messagesRepo.markUnsubscribed(tx, found.message.id, now)) await recordMessageEvents(tx, 'unsubscribe', [sourceOf(found)], now)
    if (found.message.contactId !== null) {
      await setStatusOfIds(tx, { ids: [found.message.contactId], status: CONTACT_STATUS.unsubscribed, onlyFrom: [CONTACT_STATUS.active, CONTACT_STATUS.new], now })
    }
  })
  return target
}

/** The message as its recipient got it (the web version). */
export async function messageCopy(deps: Deps, token: string): Promise<string | undefined> {
  const found = await find(deps, token)
  if (!found) return undefined
  const prepared = preparedCampaign(found.campaign)
  if (prepared instanceof Error) return undefined
  return renderMessage(prepared, addressingOf(deps.config, await signingKey(deps), found.message, prepared.listId)).html
}

/** The campaign's archived copy: its HTML without anyone's variables, links leading straight to their targets. */
export async function archivedCopy(deps: Deps, token: string): Promise<string | undefined> {
  const id = campaignIdOfToken(await verifyingKeys(deps), token)
  const campaign = id === undefined ? undefined : await campaignsRepo.findCampaignById(deps.db, id)
  if (!campaign) return undefined
  const render = compileTemplate(campaign.body)
  return render instanceof Error ? undefined : render({ unsubscribe_url: '#', permalink: '#' })
}
