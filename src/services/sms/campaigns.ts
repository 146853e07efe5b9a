// SMS campaigns (API.md 2.11, 4.11): created priced and paid in one transaction (not enough money → nothing
// stored), their messages queued on the same dispatcher as email (dispatcher/sms-driver.ts), read back with
// each number's status, canceled before sending starts with the refund, deleted.
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import * as smsCampaigns from '../../storage/repos/sms-campaigns.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import { shortenLinks } from '../../tracking/short-links.js'
import { toWireDate } from '../../lib/wire-date.js'
import { AppError } from '../errors.js'
import { requirePlan } from '../accounts/plans.js'
import { moveCampaign } from '../sending/campaign-status.js'
import { settleCharge } from '../sending/settlement.js'
import { writeOffOrRefuse } from '../sending/write-off.js'
import type { Deps } from '../types.js'
import { bodyOf, optionsOf, routeOf, senderOf, sendTimeOf, type SmsCampaignInput } from './campaign-input.js'
import { audienceOfList, audienceOfNumbers, type Audience } from './recipients.js'
import { priceRecipients } from './pricing.js'
import { requireActiveSmsSender } from './senders.js'
import { queueDynamicListTopUp } from './dynamic-list.js'

const { CAMPAIGN_STATUS } = campaignsRepo
/** From this many recipients on, a campaign passes moderation (as email, API.md 3.3 and 3.4). */
const MODERATED_FROM = 20

const campaignNotFound = () => new AppError('not_found', 'Campaign not found')

export interface CreatedSmsCampaign {
  id: number
  exceptions: number
  sends: number
}

/** POST /sms/campaigns (`addressBookId`) and POST /sms/send (`phones`). */
export async function createSmsCampaign(deps: Deps, accountId: number, input: SmsCampaignInput, source: 'list' | 'numbers'): Promise<CreatedSmsCampaign> {
  const now = deps.now()
  const sender = senderOf(input)
  let body = bodyOf(input)
  const options = optionsOf(input)
  const { sendAt, scheduled } = sendTimeOf(input.date, now)
  if (source === 'list' && input.addressBookId === undefined) throw new AppError('invalid', 'Argument addressBookId is missing')
  if (source === 'numbers' && (input.phones ?? []).length === 0) throw new AppError('invalid', 'Argument phones is missing')
  if (source === 'list' && input.use_dynamic_list) await requirePlan(deps, accountId, 'dynamicLists')
  await requireActiveSmsSender(deps, accountId, sender)
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account) throw campaignNotFound()
  const audience = source === 'list' ? await audienceOfList(deps, accountId, input.addressBookId!) : await audienceOfNumbers(deps, accountId, input.phones!)
  const emulated = input.emulate === true
  const held = !emulated && deps.config.moderation === 'manual' && audience.recipients.length >= MODERATED_FROM

  const id = await deps.db.transaction().execute(async (tx) => {
    const id = await campaignsRepo.insertCampaign(tx, {
      ...campaignsRepo.PHONE_CAMPAIGN_DEFAULTS,
      accountId,
      name: `SMS ${toWireDate(now)}`,
      status: emulated ? CAMPAIGN_STATUS.emulated : audience.recipients.length === 0 ? CAMPAIGN_STATUS.noActiveAddresses : held ? CAMPAIGN_STATUS.pending : CAMPAIGN_STATUS.sending,
      senderName: sender,
      body,
      listIds: source === 'list' ? [input.addressBookId!] : [],
      sendAt,
      scheduled,
      useDynamicList: input.use_dynamic_list === true,
      allEmailQty: audience.recipients.length,
      currency: account.currency,
      channel: 'sms',
      channelOptions: JSON.stringify(options),
      now,
    })
    // Links are shortened before pricing: the short link is what the recipient's text holds and pays for.
    if (options.linkTracking) {
      body = await shortenLinks(tx, { campaignId: id, body, publicUrl: deps.config.publicUrl, withProtocol: options.linkProtocol, now })
      await campaignsRepo.setBody(tx, id, body, now)
    }
    const { messages, totalMicros } = priceRecipients(audience.recipients, body, { prices: deps.config.smsPrices, ...options })
    if (!emulated) {
      await writeOffOrRefuse(tx, { accountId, campaignId: id, chargedMicros: 0, micros: totalMicros, currency: account.currency, note: `sms campaign ${id}`, recipients: messages.length, unit: 'numbers', now })
    }
    await messageQueue.insertSmsMessages(tx, { campaignId: id, accountId, queued: !emulated && !held, sendAt, now }, messages)
    if (input.use_dynamic_list && source === 'list' && scheduled && !emulated) await queueDynamicListTopUp(tx, { id, accountId }, { now, runAt: sendAt })
    return id
  })
  return { id, exceptions: audience.exceptions, sends: emulated ? 0 : audience.recipients.length }
}

export interface SmsCostQuery {
  transliterate?: boolean
  addressBookId?: number
  phones?: unknown[]
  body?: string
  sender?: string
  route?: Record<string, string>
}

/** GET /sms/campaigns/cost: the list wins when both are given (COMPAT.md "SMS and Viber" 8). */
export async function smsCampaignCost(deps: Deps, accountId: number, query: SmsCostQuery): Promise<{ priceMicros: number; currency: string }> {
  const body = bodyOf(query)
  senderOf(query)
  const route = routeOf(query)
  let audience: Audience
  // 0 is no list (COMPAT.md "SMS and Viber" 8): the numbers are priced.
  if (query.addressBookId) audience = await audienceOfList(deps, accountId, query.addressBookId)
  else if ((query.phones ?? []).length > 0) audience = await audienceOfNumbers(deps, accountId, query.phones!)
  else throw new AppError('invalid', 'Argument addressBookId or phones is missing: give a list or numbers')
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  const { totalMicros } = priceRecipients(audience.recipients, body, { prices: deps.config.smsPrices, route, transliterate: query.transliterate === true })
  return { priceMicros: totalMicros, currency: account?.currency ?? deps.config.defaultCurrency }
}

export async function getSmsCampaign(deps: Deps, accountId: number, id: number): Promise<campaignsRepo.CampaignRow> {
  const campaign = await campaignsRepo.findCampaign(deps.db, accountId, id, 'sms')
  if (!campaign) throw campaignNotFound()
  return campaign
}

/** A campaign and each number's message, for GET /sms/campaigns/info/{id}. */
export async function smsCampaignInfo(deps: Deps, accountId: number, id: number): Promise<{ campaign: campaignsRepo.CampaignRow; numbers: smsCampaigns.NumberStatus[] }> {
  const campaign = await getSmsCampaign(deps, accountId, id)
  return { campaign, numbers: await smsCampaigns.numbersOf(deps.db, id) }
}

/** GET /sms/campaigns/list: created between the dates, emulated ones left out. */
export async function listSmsCampaigns(deps: Deps, accountId: number, range: { from?: number; to?: number }): Promise<campaignsRepo.CampaignRow[]> {
  return smsCampaigns.listSmsCampaigns(deps.db, accountId, range)
}

/** PUT /sms/campaigns/cancel/{id}: only before its first message went out; what was paid is given back. */
export async function cancelSmsCampaign(deps: Deps, accountId: number, id: number): Promise<void> {
  const campaign = await getSmsCampaign(deps, accountId, id)
  if (campaign.status === CAMPAIGN_STATUS.canceled) return
  if (![CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.sending].includes(campaign.status as 1 | 2)) throw new AppError('invalid', 'The campaign cannot be canceled: its sending has started or ended')
  await deps.db.transaction().execute(async (tx) => {
    await campaignsRepo.lockCampaign(tx, id)
    if (await messageQueue.hasStarted(tx, id)) throw new AppError('invalid', 'The campaign cannot be canceled: sending has started')
    const now = deps.now()
    await messageQueue.endUnsent(tx, id, now)
    await moveCampaign(tx, { id, from: [CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.sending], to: CAMPAIGN_STATUS.canceled, now, extra: { finished_at: now } })
    await settleCharge(tx, campaign, now)
  })
}

/** DELETE /sms/campaigns: a campaign not yet sent is canceled (and paid back) first; one being sent stays. */
export async function deleteSmsCampaign(deps: Deps, accountId: number, id: number): Promise<void> {
  const campaign = await getSmsCampaign(deps, accountId, id)
  if ([CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.sending].includes(campaign.status as 1 | 2)) {
    if (await smsCampaigns.hasUnfinishedStarted(deps.db, id)) throw new AppError('invalid', 'The campaign is being sent: it can be deleted when sending ends')
    await cancelSmsCampaign(deps, accountId, id)
  }
  await deps.db.transaction().execute(async (tx) => smsCampaigns.deleteSmsCampaign(tx, id))
}
