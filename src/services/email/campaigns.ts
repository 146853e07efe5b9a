// Email campaigns (API.md 2.3, 4.2): creation with its limits and write-off, reading, editing a scheduled
// campaign, canceling, and the operator's moderation (of SMS campaigns too). Sending is the dispatcher's
// (dispatcher/message-sender.ts, email-driver.ts); the copy of recipients is in campaign-lifecycle.ts.
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messagesRepo from '../../storage/repos/messages.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import * as messageStats from '../../storage/repos/message-stats.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as booksRepo from '../../storage/repos/address-books.js'
import { normalizeEmail } from '../../lib/email-address.js'
import { isDeadlockVictim } from '../../storage/db.js'
import { AppError } from '../errors.js'
import { requireActiveSender } from './senders.js'
import { requirePlan } from '../accounts/plans.js'
import { ampOf, attachmentsOf, contentOf, draftOf, listsOf, sendTimeOf, type CreateCampaignInput } from './campaign-input.js'
import { queueSnapshot, willBeCopied } from './campaign-lifecycle.js'
import { finishIfDone, moveCampaign } from '../sending/campaign-status.js'
import { settleCharge } from '../sending/settlement.js'
import type { Deps, Page } from '../types.js'

const { CAMPAIGN_STATUS } = campaignsRepo
const HOUR = 3_600_000

export type Campaign = campaignsRepo.CampaignRow

export interface CreatedCampaign {
  id: number
  status: number
  count: number
  tariffEmailQty: number
  priceMicros: number
  currency: string
}

const campaignNotFound = () => new AppError('not_found', 'Campaign not found')

export async function createCampaign(deps: Deps, accountId: number, input: CreateCampaignInput): Promise<CreatedCampaign> {
  const now = deps.now()
  await checkHourlyLimit(deps, accountId, now)
  const sender = await requireActiveSender(deps, accountId, input.sender_email)
  const isTest = input.is_test === true
  const draft = draftOf(input.type)
  const content = await contentOf(deps, accountId, input)
  const listIds = await listsOf(deps, accountId, input)
  const { sendAt, scheduled } = sendTimeOf(input.send_date, now)
  const attachments = attachmentsOf(input)
  const bodyAmp = await ampOf(deps, accountId, input.body_amp)
  if (input.use_dynamic_list) await requirePlan(deps, accountId, 'dynamicLists')
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account) throw campaignNotFound()

  const counts = await booksRepo.countContactsByBook(deps.db, listIds)
  const count = draft ? 0 : isTest ? 1 : listIds.reduce((sum, id) => sum + (counts.get(id)?.active ?? 0), 0)
  const priceMicros = Math.round(deps.config.emailPrice * 1e6)
  const costMicros = count * priceMicros
  const status = draft ? CAMPAIGN_STATUS.draft : isTest ? CAMPAIGN_STATUS.test : CAMPAIGN_STATUS.copying
  const id = await deps.db.transaction().execute(async (tx) => {
    // Checked under the account's lock: two campaigns created at once cannot both spend the same money.
    await accountsRepo.lockAccount(tx, accountId)
    if (costMicros > 0 && (await accountsRepo.sumBalanceMicros(tx, accountId)) < costMicros) {
      throw new AppError('invalid', `Not enough money on the balance: sending to ${count} addresses costs ${(costMicros / 1e6).toFixed(4)} ${account.currency}`, { publishedCode: 14 })
    }
    const id = await campaignsRepo.insertCampaign(tx, {
      accountId,
      name: input.name ?? input.subject,
      status,
      isTest,
      senderName: input.sender_name,
      senderEmail: sender.email,
      subject: input.subject,
      body: content.html,
      bodyAmp,
      templateId: content.templateId,
      lang: content.lang,
      listIds,
      segmentId: null,
      sendAt,
      scheduled,
      useDynamicList: input.use_dynamic_list === true,
      attachments,
      trackOpens: input.stats?.opens !== false,
      trackClicks: input.stats?.clicks !== false,
      utmCampaign: input.stats?.utm_campaign ?? null,
      allEmailQty: count,
      tariffEmailQty: count,
      paidEmailQty: 0,
      priceMicros,
      chargedMicros: costMicros,
      currency: account.currency,
      now,
    })
    if (costMicros > 0) await accountsRepo.recordLedgerEntry(tx, { accountId, amountMicros: -costMicros, kind: 'write_off', note: `campaign ${id}`, now })
    if (isTest) {
      await messageQueue.insertMessage(tx, { campaignId: id, accountId, email: sender.email, variables: JSON.stringify({ name: sender.name }), sendAt, now })
    } else if (!draft) {
      // A dynamic list is read when sending starts, so contacts added until then receive it too.
      await queueSnapshot(tx, { id, accountId }, { now, runAt: input.use_dynamic_list && scheduled ? sendAt : now })
    }
    return id
  })
  return { id, status, count, tariffEmailQty: count, priceMicros, currency: account.currency }
}

/** API.md 8: a few campaigns an hour per account (`campaignsPerHour`); the answer says when the next may come. */
async function checkHourlyLimit(deps: Deps, accountId: number, now: number): Promise<void> {
  const recent = await campaignsRepo.createdSince(deps.db, accountId, now - HOUR)
  const limit = deps.config.campaignsPerHour
  if (recent.length < limit) return
  const retryAfter = Math.max(1, Math.ceil((recent[recent.length - limit]! + HOUR - now) / 1000))
  throw new AppError('too_many_requests', `Too many campaigns: at most ${limit} an hour; try again in ${retryAfter} s`, {
    headers: { 'retry-after': String(retryAfter) },
  })
}

export async function getCampaign(deps: Deps, accountId: number, id: number): Promise<Campaign> {
  const campaign = await campaignsRepo.findCampaign(deps.db, accountId, id)
  if (!campaign) throw campaignNotFound()
  return campaign
}

export interface CampaignListQuery {
  order?: 'asc' | 'desc'
  statuses?: number[]
  planned?: boolean
}

export async function listCampaigns(deps: Deps, accountId: number, query: CampaignListQuery, page: Page): Promise<Campaign[]> {
  return campaignsRepo.listCampaigns(
    deps.db,
    { accountId, statuses: query.statuses, scheduledAfter: query.planned ? deps.now() : undefined, order: query.order ?? 'desc' },
    page,
  )
}

export async function listBookCampaigns(deps: Deps, accountId: number, bookId: number, page: Page): Promise<Campaign[]> {
  return campaignsRepo.listCampaignsOfBook(deps.db, accountId, bookId, page)
}

export interface CampaignEditInput {
  name?: string
  sender_name?: string
  sender_email?: string
  subject?: string
  body?: string
  template_id?: string | number
  send_date?: string
}

/** PATCH: a campaign not yet sending (scheduled, or a draft) takes new content, sender or time. */
export async function editCampaign(deps: Deps, accountId: number, id: number, input: CampaignEditInput): Promise<void> {
  const now = deps.now()
  const campaign = await getCampaign(deps, accountId, id)
  const notWaiting = () => new AppError('invalid', 'Only a scheduled campaign or a draft can be edited; this one is already sending or over')
  if (!campaignsRepo.isWaiting(campaign, now)) throw notWaiting()
  const sender = input.sender_email === undefined ? undefined : await requireActiveSender(deps, accountId, input.sender_email)
  const content = input.body === undefined && input.template_id === undefined ? undefined : await contentOf(deps, accountId, input)
  const sendAt = input.send_date === undefined ? undefined : sendTimeOf(input.send_date, now).sendAt
  await deps.db.transaction().execute(async (tx) => {
    // Checked again in the update: the campaign may have been canceled or started since it was read above.
    const status = await campaignsRepo.editCampaign(
      tx,
      id,
      { name: input.name, senderName: input.sender_name, senderEmail: sender?.email, subject: input.subject, body: content?.html, templateId: content?.templateId, lang: content?.lang, sendAt },
      now,
    )
    if (status === undefined) throw notWaiting()
    if (sendAt !== undefined) await messageQueue.reschedule(tx, id, sendAt, now)
    // A dynamic list is read at the new time (the job queued for the old one steps aside, or finds it done).
    if (sendAt !== undefined && campaign.useDynamicList && status === CAMPAIGN_STATUS.copying) await queueSnapshot(tx, campaign, { now, runAt: sendAt })
  })
}

/** DELETE: the campaign stops (16); messages not yet taken are never sent and are given back to the balance. */
export async function cancelCampaign(deps: Deps, accountId: number, id: number): Promise<void> {
  await endEarly(deps, await getCampaign(deps, accountId, id), CAMPAIGN_STATUS.canceled)
}

/**
 * A disabled or deleted account sends nothing more: its campaigns that may still send are canceled (16) and
 * what they did not send is given back. Drafts stay. Returns the ids canceled.
 */
export async function cancelUnfinishedOf(deps: Deps, accountId: number): Promise<number[]> {
  const canceled: number[] = []
  for (const campaign of await campaignsRepo.listUnfinishedOf(deps.db, accountId)) {
    try {
      await endEarly(deps, campaign, CAMPAIGN_STATUS.canceled)
      canceled.push(campaign.id)
    } catch (err) {
      // It ended by itself between the list and the cancel.
      if (!(err instanceof AppError)) throw err
    }
  }
  return canceled
}

/** Tries a transaction again when PostgreSQL picked it as a deadlock's victim (it was rolled back whole). */
async function retryingDeadlocks<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (!isDeadlockVictim(err) || attempt >= 5) throw err
    }
  }
}

/**
 * Ends a campaign before its time. It locks the campaign, then its unsent messages, while a sender finishing a
 * batch locks messages, then the campaign: when a batch's lease ran out mid-send the two can meet, and the
 * cancel is tried again.
 */
async function endEarly(deps: Deps, campaign: Campaign, to: number): Promise<void> {
  const now = deps.now()
  await retryingDeadlocks(() => deps.db.transaction().execute(async (tx) => {
    const moved = await moveCampaign(tx, { id: campaign.id, from: campaignsRepo.OPEN_STATUSES, to, now, extra: { finished_at: now } })
    if (!moved) throw new AppError('invalid', 'The campaign is over: it can no longer be canceled')
    await messageQueue.endUnsent(tx, campaign.id, now)
    await settleCharge(tx, campaign, now)
  }))
}

/** `tidings campaigns pending`: what waits for the operator's moderation. */
export async function listAwaitingModeration(deps: Deps): Promise<Campaign[]> {
  return campaignsRepo.listByStatus(deps.db, CAMPAIGN_STATUS.pending)
}

/** `tidings campaigns approve ID`: a campaign held for moderation (1) starts sending. */
export async function approveCampaign(deps: Deps, id: number): Promise<void> {
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    if (!(await moveCampaign(tx, { id, from: [CAMPAIGN_STATUS.pending], to: CAMPAIGN_STATUS.sending, now }))) {
      throw new AppError('invalid', `Campaign ${id} is not waiting for moderation`)
    }
    await messageQueue.releaseHeld(tx, id, now)
    await finishIfDone(tx, id, now)
  })
}

/** `tidings campaigns reject ID`: a campaign held for moderation is blocked (5) and nothing is sent. */
export async function rejectCampaign(deps: Deps, id: number): Promise<void> {
  const campaign = await campaignsRepo.findCampaignById(deps.db, id)
  if (!campaign || campaign.status !== CAMPAIGN_STATUS.pending) throw new AppError('invalid', `Campaign ${id} is not waiting for moderation`)
  await endEarly(deps, campaign, CAMPAIGN_STATUS.blocked)
}

export async function totalsOf(deps: Deps, campaignIds: number[]): Promise<Map<number, messageStats.MessageTotals>> {
  return messageStats.totalsOf(deps.db, campaignIds)
}

export async function linkClicks(deps: Deps, campaignId: number) {
  return campaignsRepo.linkClicks(deps.db, campaignId)
}

export async function opensByCountry(deps: Deps, accountId: number, id: number): Promise<Map<string, number>> {
  await getCampaign(deps, accountId, id)
  return messageStats.opensByCountry(deps.db, id)
}

export async function referrals(deps: Deps, accountId: number, id: number): Promise<{ link: string; clicks: number }[]> {
  await getCampaign(deps, accountId, id)
  return campaignsRepo.linkClicks(deps.db, id)
}

export type RecipientState = Pick<messagesRepo.MessageRow, 'status' | 'sentAt' | 'lastError'>

/** What happened to one address in a campaign; while recipients are copied (13), one still to be copied is queued. */
export async function messageTo(deps: Deps, accountId: number, id: number, rawEmail: string): Promise<RecipientState> {
  const campaign = await getCampaign(deps, accountId, id)
  const email = normalizeEmail(rawEmail)
  if (!email) throw new AppError('invalid', 'Argument email is invalid')
  const message = await messagesRepo.findMessageByEmail(deps.db, id, email)
  if (message) return message
  if (await willBeCopied(deps.db, campaign, email)) return { status: messagesRepo.MESSAGE_STATUS.queued, sentAt: null, lastError: null }
  throw new AppError('not_found', 'Email not found in the campaign')
}
