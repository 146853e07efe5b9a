// A campaign's messages as its recipients got them (GET /outbox?campaign_id=, `tidings outbox --campaign`):
// rendered again from the message rows, which hold everything that made them, so nothing is stored twice.
// With no relay configured this is where captured campaign emails can be read; SMS and Viber campaigns' texts too.
import * as messagesRepo from '../../storage/repos/messages.js'
import { renderMessage } from '../../delivery/email/campaign-content.js'
import { getCampaign } from './campaigns.js'
import { addressingOf } from '../../tracking/message-links.js'
import { preparedCampaign } from './prepared-campaigns.js'
import { signingKey } from '../../tracking/signing-key.js'
import { campaignOutboxItem, type ListedEmail } from './outbox.js'
import { listSmsOutbox } from '../sms/outbox.js'
import { listViberOutbox } from '../viber/outbox.js'
import type { Deps, Page } from '../types.js'
import { AppError } from '../errors.js'

export async function listCampaignOutbox(deps: Deps, accountId: number, campaignId: number, page: Page): Promise<ListedEmail[]> {
  const texts = (await listSmsOutbox(deps, accountId, campaignId, page)) ?? (await listViberOutbox(deps, accountId, campaignId, page))
  if (texts) return texts
  const campaign = await getCampaign(deps, accountId, campaignId)
  const prepared = preparedCampaign(campaign)
  const key = await signingKey(deps)
  const messages = await messagesRepo.listMessages(deps.db, campaignId, page)
  return messages.map((m) => {
    const email = prepared instanceof Error ? undefined : renderMessage(prepared, addressingOf(deps.config, key, m, prepared.listId))
    return campaignOutboxItem(m, campaign, {
      kind: 'campaign',
      from: { email: campaign.senderEmail, name: campaign.senderName },
      subject: email?.subject,
      html: email?.html,
      text: email?.text ?? '',
    })
  })
}

/** The HTML one email campaign message was sent with (GET /outbox/{id}/body?campaign_id=): rendered as listed. */
export async function campaignMessageHtml(deps: Deps, accountId: number, campaignId: number, messageId: number): Promise<string> {
  const campaign = await getCampaign(deps, accountId, campaignId)
  const message = await messagesRepo.findCampaignMessage(deps.db, campaignId, messageId)
  const prepared = preparedCampaign(campaign)
  if (!message || prepared instanceof Error) throw new AppError('not_found', 'Message not found')
  const key = await signingKey(deps)
  return renderMessage(prepared, addressingOf(deps.config, key, message, prepared.listId)).html
}
