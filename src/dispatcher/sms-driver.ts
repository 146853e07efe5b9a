// The SMS side of the one dispatcher (message-sender.ts): renders the campaign's text for each number, submits
// through the SMS channel (SMPP or capture), and records the SMSC's part ids so delivery receipts find their
// message. A submit the SMSC refused for good ends the message as not sent (and so refunded); what a receipt
// says later moves it to delivered or not delivered (repos/sms-parts.ts).
import type { Kysely } from 'kysely'
import type { ClaimedMessage } from '../storage/repos/message-queue.js'
import { MESSAGE_STATUS } from '../storage/repos/messages.js'
import { recordSubmittedParts } from '../storage/repos/sms-parts.js'
import type { Database } from '../storage/tables.js'
import type { OutboundSms, SmsChannel, SmsSendResult } from '../delivery/sms/channel.js'
import { readOptions } from '../services/sms/campaign-input.js'
import { readViberOptions } from '../services/viber/campaign-input.js'
import { smsTextOf, type SmsText } from '../services/sms/sms-text.js'
import { perCampaignCache } from '../services/sending/campaign-cache.js'
import type { ChannelDriver, Outcome } from './message-sender.js'

interface PreparedSms {
  sender: string
  render: SmsText
}

const MAX_ERROR_LENGTH = 1000

type SmsOutcome = Outcome & { providerIds?: readonly string[] }

export function smsDriver(channel: SmsChannel): ChannelDriver<PreparedSms, OutboundSms, SmsSendResult, SmsOutcome> {
  const prepared = perCampaignCache((campaign): PreparedSms => {
    // A Viber campaign's SMS are those sent instead of undelivered Viber messages (resend_sms).
    if (campaign.channel === 'viber') {
      const resend = readViberOptions(campaign.channelOptions).resendSms
      if (!resend) throw new Error('the Viber campaign sends no SMS instead')
      return { sender: resend.sender, render: smsTextOf(resend.text, { transliterate: false }) }
    }
    return { sender: campaign.senderName, render: smsTextOf(campaign.body, readOptions(campaign.channelOptions)) }
  })
  return {
    channel: 'sms',
    name: channel.name,
    prepare: prepared,
    render(p, message) {
      return { from: p.sender, to: message.address, text: p.render(JSON.parse(message.variables) as Record<string, unknown>) }
    },
    units(message) {
      // The SMSC counts parts: a long text takes as much of the rate as its parts.
      return message.parts ?? 1
    },
    send(batch) {
      return channel.send(batch)
    },
    outcomeOf(message: ClaimedMessage, result: SmsSendResult) {
      if (result.ok) return { recorded: { id: message.id, kind: 'submitted', captured: result.captured === true }, providerIds: result.providerIds }
      const error = result.reason.slice(0, MAX_ERROR_LENGTH)
      return { recorded: { id: message.id, kind: 'final', status: MESSAGE_STATUS.notSent, error } }
    },
    retryOf(message: ClaimedMessage, result: SmsSendResult, retryAt: number) {
      const error = result.ok ? '' : result.reason.slice(0, MAX_ERROR_LENGTH)
      return { recorded: { id: message.id, kind: 'retry', error, retryAt } }
    },
    async afterRecord(tx: Kysely<Database>, held, _campaigns, now) {
      const submitted = held.filter((h) => h.providerIds !== undefined).map((h) => ({ messageId: h.message.id, providerIds: h.providerIds! }))
      if (submitted.length > 0) await recordSubmittedParts(tx, submitted, now)
    },
  }
}
