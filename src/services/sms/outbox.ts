// An SMS campaign's texts as their numbers got them (GET /outbox?campaign_id=, `tidings outbox --campaign`):
// rendered again from the message rows. With no SMSC configured (capture) this is where they can be read.
import * as messagesRepo from '../../storage/repos/messages.js'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import { campaignOutboxItem, type ListedEmail } from '../email/outbox.js'
import type { Deps, Page } from '../types.js'
import { readOptions } from './campaign-input.js'
import { smsTextOf } from './sms-text.js'

/** The campaign's texts, or undefined when the account has no SMS campaign of that id. */
export async function listSmsOutbox(deps: Deps, accountId: number, campaignId: number, page: Page): Promise<ListedEmail[] | undefined> {
  const campaign = await campaignsRepo.findCampaign(deps.db, accountId, campaignId, 'sms')
  if (!campaign) return undefined
  const render = smsTextOf(campaign.body, readOptions(campaign.channelOptions))
  const messages = await messagesRepo.listMessages(deps.db, campaignId, page)
  return messages.map((m) =>
    campaignOutboxItem(m, campaign, { kind: 'sms', from: { email: '', name: campaign.senderName }, text: render(JSON.parse(m.variables) as Record<string, unknown>) }),
  )
}
