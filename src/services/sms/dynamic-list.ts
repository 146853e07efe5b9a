// `use_dynamic_list` (API.md 4.11.1): a campaign to a list sent later also reaches the numbers added to the
// list between its creation and its sending time. At that time a job copies them in, priced like the others,
// and pays for as many as the balance allows (the rest are left out, never sent unpaid).
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import { enqueueJob } from '../../storage/repos/jobs.js'
import { sendableNumbersOf } from '../../storage/repos/list-phones.js'
import type { Database } from '../../storage/tables.js'
import type { JobHandler } from '../../dispatcher/jobs.js'
import { readOptions } from './campaign-input.js'
import { priceRecipients } from './pricing.js'
import { payWhatBalanceAllows } from '../sending/write-off.js'

export const DYNAMIC_LIST_JOB = 'sms.dynamic-list'

export async function queueDynamicListTopUp(db: Kysely<Database>, campaign: { id: number; accountId: number }, when: { now: number; runAt: number }): Promise<void> {
  await enqueueJob(db, { accountId: campaign.accountId, kind: DYNAMIC_LIST_JOB, payload: { campaignId: campaign.id }, now: when.now, runAt: when.runAt })
}

const topUp: JobHandler = async (deps, payload, tx) => {
  const { campaignId } = payload as { campaignId: number }
  await campaignsRepo.lockCampaign(tx, campaignId)
  const campaign = await campaignsRepo.findCampaignById(tx, campaignId)
  // Canceled or deleted meanwhile: nothing to add.
  if (!campaign || campaign.channel !== 'sms' || !campaignsRepo.SENDING_STATUSES.concat(campaignsRepo.CAMPAIGN_STATUS.pending).includes(campaign.status)) return
  const bookId = campaign.listIds[0]
  if (bookId === undefined) return
  const known = new Set((await tx.selectFrom('messages').select('address').where('campaign_id', '=', campaignId).execute()).map((m) => m.address))
  const added = (await sendableNumbersOf(tx, campaign.accountId, bookId)).filter((n) => !known.has(n.phone)).map((n) => ({ ...n, bookId }))
  if (added.length === 0) return
  const { messages } = priceRecipients(added, campaign.body, { prices: deps.config.smsPrices, ...readOptions(campaign.channelOptions) })
  const now = deps.now()
  const paid = await payWhatBalanceAllows(tx, { accountId: campaign.accountId, campaignId, chargedMicros: campaign.chargedMicros, currency: campaign.currency, note: `sms campaign ${campaignId}`, now }, messages)
  if (paid.length === 0) return
  const held = campaign.status === campaignsRepo.CAMPAIGN_STATUS.pending
  await messageQueue.insertSmsMessages(tx, { campaignId, accountId: campaign.accountId, queued: !held, sendAt: campaign.sendAt, now }, paid)
}

export const smsJobHandlers: Readonly<Record<string, JobHandler>> = { [DYNAMIC_LIST_JOB]: topUp }
