// resend_sms (API.md 4.10.1, issue 18): a Viber message that ended undelivered — refused by the provider, reported
// rejected or undeliverable, or its live time over without a delivery — gets the campaign's SMS text from its SMS
// sender, as a message of channel 'sms' in the same campaign (fallback_of = the Viber message). It is priced as
// SMS (TIDINGS_SMS_PRICES), paid through the ledger while the balance allows, and sent by the SMS channel of the
// one dispatcher. Written in the transaction that ended the Viber message, so it is created exactly once.
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import type { UndeliveredViber } from '../../storage/repos/viber-messages.js'
import type { Database } from '../../storage/tables.js'
import { payWhatBalanceAllows } from '../sending/write-off.js'
import { priceRecipients } from '../sms/pricing.js'
import type { Deps } from '../types.js'
import { readViberOptions } from './campaign-input.js'

/** Campaigns a fallback may still be sent for: not canceled or blocked meanwhile. */
const ACTIVE: readonly number[] = [campaignsRepo.CAMPAIGN_STATUS.sending, campaignsRepo.CAMPAIGN_STATUS.sent]

export async function sendSmsInstead(tx: Kysely<Database>, deps: Pick<Deps, 'config'>, undelivered: readonly UndeliveredViber[], now: number): Promise<number> {
  const byCampaign = new Map<number, UndeliveredViber[]>()
  for (const message of undelivered) byCampaign.set(message.campaignId, [...(byCampaign.get(message.campaignId) ?? []), message])
  let queued = 0
  // Campaign rows before the account's (write-off.ts), in id order, as every transaction that writes both does.
  // A callback's transaction gets here holding a key-share lock on the campaign (it wrote its message twice):
  // FOR UPDATE there deadlocked two callbacks of one campaign on PostgreSQL (see the repo function).
  for (const campaignId of [...byCampaign.keys()].sort((a, b) => a - b)) {
    await campaignsRepo.lockCampaignBesideKeyShares(tx, campaignId)
    const campaign = await campaignsRepo.findCampaignById(tx, campaignId)
    const resend = campaign && readViberOptions(campaign.channelOptions).resendSms
    if (!campaign || !resend || !ACTIVE.includes(campaign.status)) continue
    const recipients = byCampaign.get(campaignId)!.map((m) => ({ phone: m.address, variables: m.variables, bookId: m.bookId, fallbackOf: m.id }))
    const { messages } = priceRecipients(recipients, resend.text, { prices: deps.config.smsPrices, route: {}, transliterate: false })
    const priced = messages.map((m, i) => ({ ...m, fallbackOf: recipients[i]!.fallbackOf }))
    const note = `viber campaign ${campaignId}: SMS instead`
    const paid = await payWhatBalanceAllows(tx, { accountId: campaign.accountId, campaignId, chargedMicros: campaign.chargedMicros, currency: campaign.currency, note, now }, priced)
    await messageQueue.insertSmsMessages(tx, { campaignId, accountId: campaign.accountId, queued: true, sendAt: now, now }, paid)
    queued += paid.length
  }
  return queued
}
