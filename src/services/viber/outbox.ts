// A Viber campaign's messages as their numbers got them (GET /outbox?campaign_id=, `tidings outbox --campaign`),
// and the SMS sent instead where Viber did not deliver. With no provider configured (capture) this is where they
// can be read.
import * as messagesRepo from '../../storage/repos/messages.js'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import { campaignOutboxItem, type ListedEmail } from '../email/outbox.js'
import type { Deps, Page } from '../types.js'
import { smsTextOf } from '../sms/sms-text.js'
import { readViberOptions } from './campaign-input.js'

/** The campaign's messages, or undefined when the account has no Viber campaign of that id. */
export async function listViberOutbox(deps: Deps, accountId: number, campaignId: number, page: Page): Promise<ListedEmail[] | undefined> {
  const campaign = await campaignsRepo.findCampaign(deps.db, accountId, campaignId, 'viber')
  if (!campaign) return undefined
  const options = readViberOptions(campaign.channelOptions)
  // What a Viber client shows: the text, the button (its label and where it leads) and the image.
  const viberText = [campaign.body, options.button && `[${options.button.text}] ${options.button.link}`, options.imageUrl && `Image: ${options.imageUrl}`].filter(Boolean).join('\n')
  const smsText = options.resendSms ? smsTextOf(options.resendSms.text, { transliterate: false }) : () => ''
  const messages = await messagesRepo.listMessages(deps.db, campaignId, page)
  return messages.map((m) =>
    m.fallbackOf === null
      ? campaignOutboxItem(m, campaign, { kind: 'viber', from: { email: '', name: campaign.senderName }, text: viberText })
      : campaignOutboxItem(m, campaign, { kind: 'sms', from: { email: '', name: options.resendSms?.sender ?? '' }, text: smsText(JSON.parse(m.variables) as Record<string, unknown>) }),
  )
}
