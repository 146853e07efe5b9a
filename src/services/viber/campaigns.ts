// Viber campaigns (API.md 2.10, 4.10): created from a list's numbers or typed-in ones, each priced by its
// country and paid in the creating transaction (not enough money → nothing stored); sent by the one dispatcher
// (dispatcher/viber-driver.ts), spread over stretch_time; rewritten by POST /viber/update before sending starts.
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as viberCampaigns from '../../storage/repos/viber-campaigns.js'
import * as viberMessages from '../../storage/repos/viber-messages.js'
import type { Database } from '../../storage/tables.js'
import { toWireDate } from '../../lib/wire-date.js'
import { AppError } from '../errors.js'
import { requireActiveSmsSender } from '../sms/senders.js'
import { writeOffOrRefuse } from '../sending/write-off.js'
import type { Deps, Page } from '../types.js'
import { MESSAGE_TYPE, readViberOptions, viberOptionsOf, viberSendTimeOf, type ViberCampaignInput, type ViberCampaignOptions } from './campaign-input.js'
import { audienceOfBook, audienceOfRecipients, priceViberRecipients, type ViberRecipient } from './audience.js'
import { requireActiveViberSender } from './senders.js'
import { requireApprovedTemplate } from './templates.js'

const { CAMPAIGN_STATUS } = campaignsRepo
/** From this many recipients on, a campaign passes moderation (as email and SMS). */
const MODERATED_FROM = 20

const campaignNotFound = () => new AppError('not_found', 'Campaign not found')

/** A campaign's settings checked against the account: its sender name, template, SMS sender. */
interface CheckedCampaign {
  name: string
  message: string
  senderName: string
  options: ViberCampaignOptions
  bookId: number | null
  sendAt: number
  scheduled: boolean
}

async function checkCampaign(deps: Deps, accountId: number, input: ViberCampaignInput, now: number): Promise<CheckedCampaign> {
  const { options, message } = viberOptionsOf(input)
  const sender = await requireActiveViberSender(deps, accountId, options.senderId)
  if (options.messageType === MESSAGE_TYPE.system) await requireApprovedTemplate(deps, accountId, message)
  if (options.resendSms) await requireActiveSmsSender(deps, accountId, options.resendSms.sender)
  const { sendAt, scheduled } = viberSendTimeOf(input, now)
  // `address_book: 0` is the Go SDK's "none" (COMPAT.md "SMS and Viber" 11); given both, the list wins.
  const bookId = input.address_book ? input.address_book : null
  const name = input.task_name ?? `Viber campaign ${toWireDate(now)}`
  return { name, message, senderName: sender.name, options, bookId, sendAt, scheduled }
}

async function audienceOf(deps: Deps, accountId: number, input: ViberCampaignInput, bookId: number | null): Promise<ViberRecipient[]> {
  const recipients = bookId !== null ? await audienceOfBook(deps, accountId, bookId) : await audienceOfRecipients(deps, accountId, input.recipients ?? [])
  if (bookId === null && (input.recipients ?? []).length === 0) throw new AppError('invalid', 'Argument address_book or recipients is missing: give a list or up to 1000 numbers')
  if (recipients.length === 0) throw new AppError('invalid', bookId !== null ? 'The list has no active numbers that are not blacklisted for Viber' : 'Every number of recipients is blacklisted for Viber')
  return recipients
}

export interface CreatedViberCampaign {
  campaign: campaignsRepo.CampaignRow
  options: ViberCampaignOptions
}

/** POST /viber */
export async function createViberCampaign(deps: Deps, accountId: number, input: ViberCampaignInput): Promise<CreatedViberCampaign> {
  const now = deps.now()
  const checked = await checkCampaign(deps, accountId, input, now)
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account) throw campaignNotFound()
  const recipients = await audienceOf(deps, accountId, input, checked.bookId)
  const held = deps.config.moderation === 'manual' && recipients.length >= MODERATED_FROM
  const { messages, totalMicros } = priceViberRecipients(recipients, deps.config.viberPrices)
  const id = await deps.db.transaction().execute(async (tx) => {
    const id = await campaignsRepo.insertCampaign(tx, {
      ...campaignsRepo.PHONE_CAMPAIGN_DEFAULTS,
      accountId,
      name: checked.name,
      status: held ? CAMPAIGN_STATUS.pending : CAMPAIGN_STATUS.sending,
      senderName: checked.senderName,
      body: checked.message,
      listIds: checked.bookId === null ? [] : [checked.bookId],
      sendAt: checked.sendAt,
      scheduled: checked.scheduled,
      allEmailQty: messages.length,
      useDynamicList: false,
      currency: account.currency,
      channel: 'viber',
      channelOptions: JSON.stringify(checked.options),
      now,
    })
    await writeOffOrRefuse(tx, { accountId, campaignId: id, chargedMicros: 0, micros: totalMicros, currency: account.currency, note: `viber campaign ${id}`, recipients: messages.length, unit: 'numbers', now })
    await queueMessages(tx, { id, accountId, held, sendAt: checked.sendAt, stretchSeconds: checked.options.stretchSeconds, now }, messages)
    return id
  })
  return { campaign: (await campaignsRepo.findCampaignById(deps.db, id))!, options: checked.options }
}

function queueMessages(
  tx: Kysely<Database>,
  c: { id: number; accountId: number; held: boolean; sendAt: number; stretchSeconds: number; now: number },
  messages: ReturnType<typeof priceViberRecipients>['messages'],
): Promise<void> {
  return messageQueue.insertSmsMessages(tx, { campaignId: c.id, accountId: c.accountId, channel: 'viber', queued: !c.held, sendAt: c.sendAt, spreadMs: c.stretchSeconds * 1000, now: c.now }, messages)
}

/** The campaign's current settings as an update's input, for the fields an update leaves out. */
function inputOf(campaign: campaignsRepo.CampaignRow): ViberCampaignInput {
  const o = readViberOptions(campaign.channelOptions)
  return {
    task_name: campaign.name,
    message_type: o.messageType,
    sender_id: o.senderId,
    message_live_time: o.liveSeconds,
    message: campaign.body,
    stretch_time: o.stretchSeconds / 3600,
    address_book: campaign.listIds[0],
    additional: {
      button: o.button ?? undefined,
      image: o.imageUrl === null ? undefined : { link: o.imageUrl },
      resend_sms: o.resendSms ? { status: true, sms_text: o.resendSms.text, sms_sender_name: o.resendSms.sender } : undefined,
    },
  }
}

/** Given fields of an update over the current ones (a flat button_text/button_link/image_link replaces the nested one). */
function mergeUpdate(current: ViberCampaignInput, update: ViberCampaignInput, sendAt: number): ViberCampaignInput {
  const given = Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)) as ViberCampaignInput
  const additional = { ...current.additional, ...given.additional }
  if (given.button_text !== undefined || given.button_link !== undefined) additional.button = { text: given.button_text ?? current.additional?.button?.text, link: given.button_link ?? current.additional?.button?.link }
  if (given.image_link !== undefined) additional.image = { link: given.image_link }
  const { button_text: _text, button_link: _link, image_link: _image, sent_date: _sent, ...rest } = given
  return { ...current, ...rest, send_date: given.send_date ?? given.sent_date ?? toWireDate(sendAt), additional }
}

/** POST /viber/update: a campaign whose sending has not started, its settings and (with a new list) its recipients rewritten and paid again. */
export async function updateViberCampaign(deps: Deps, accountId: number, id: number, update: ViberCampaignInput): Promise<void> {
  const campaign = await notStarted(deps.db, await getViberCampaign(deps, accountId, id))
  const now = deps.now()
  const input = mergeUpdate(inputOf(campaign), update, campaign.sendAt)
  const checked = await checkCampaign(deps, accountId, input, now)
  const newList = checked.bookId !== null && checked.bookId !== (campaign.listIds[0] ?? null)
  const fresh = newList ? await audienceOf(deps, accountId, input, checked.bookId) : undefined
  await deps.db.transaction().execute(async (tx) => {
    await campaignsRepo.lockCampaign(tx, id)
    // Checked again under the lock: the dispatcher may have taken a message since.
    const current = await notStarted(tx, await campaignsRepo.findCampaignById(tx, id))
    const kept = await viberCampaigns.takeUnsentMessages(tx, id)
    const { messages, totalMicros } = priceViberRecipients(fresh ?? kept, deps.config.viberPrices)
    await viberCampaigns.rewriteViberCampaign(
      tx,
      id,
      { name: checked.name, body: checked.message, senderName: checked.senderName, channelOptions: JSON.stringify(checked.options), listIds: checked.bookId === null ? [] : [checked.bookId], sendAt: checked.sendAt, scheduled: checked.scheduled },
      now,
    )
    await repay(tx, current, totalMicros, messages.length, now)
    const held = current.status === CAMPAIGN_STATUS.pending
    await queueMessages(tx, { id, accountId, held, sendAt: checked.sendAt, stretchSeconds: checked.options.stretchSeconds, now }, messages)
  })
}

/** The campaign, if no message of it was taken for sending yet; otherwise a 422. */
async function notStarted(db: Kysely<Database>, campaign: campaignsRepo.CampaignRow | undefined): Promise<campaignsRepo.CampaignRow> {
  if (!campaign || ![CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.sending].includes(campaign.status as 1 | 2) || (await messageQueue.hasStarted(db, campaign.id))) {
    throw new AppError('invalid', 'The campaign cannot be changed: its sending has started or ended')
  }
  return campaign
}

/** Brings what the campaign paid to `micros`: the difference written off (or refused), or given back. */
async function repay(tx: Kysely<Database>, campaign: campaignsRepo.CampaignRow, micros: number, recipients: number, now: number): Promise<void> {
  const note = `viber campaign ${campaign.id}`
  const charge = { accountId: campaign.accountId, campaignId: campaign.id, currency: campaign.currency, note, now }
  if (micros > campaign.chargedMicros) await writeOffOrRefuse(tx, { ...charge, chargedMicros: campaign.chargedMicros, micros: micros - campaign.chargedMicros, recipients, unit: 'numbers' })
  else if (micros < campaign.chargedMicros) {
    await accountsRepo.recordLedgerEntry(tx, { accountId: campaign.accountId, amountMicros: campaign.chargedMicros - micros, kind: 'refund', note, now })
    await campaignsRepo.setChargedMicros(tx, campaign.id, micros, now)
  }
}

export async function getViberCampaign(deps: Deps, accountId: number, id: number): Promise<campaignsRepo.CampaignRow> {
  const campaign = await campaignsRepo.findCampaign(deps.db, accountId, id, 'viber')
  if (!campaign) throw campaignNotFound()
  return campaign
}

export async function listViberCampaigns(deps: Deps, accountId: number, page: Page): Promise<campaignsRepo.CampaignRow[]> {
  return viberCampaigns.listViberCampaigns(deps.db, accountId, page)
}

/** The campaign with its messages counted per channel and status (its Viber messages, and its SMS instead). */
export async function viberCampaignStatistics(deps: Deps, accountId: number, id: number) {
  const campaign = await getViberCampaign(deps, accountId, id)
  return { campaign, counts: await viberMessages.countsOf(deps.db, id) }
}

export async function viberCampaignRecipients(deps: Deps, accountId: number, id: number, page: Page) {
  const campaign = await getViberCampaign(deps, accountId, id)
  return { campaign, recipients: await viberMessages.recipientsOf(deps.db, id, page) }
}
