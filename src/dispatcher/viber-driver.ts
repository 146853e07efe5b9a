// The Viber side of the one dispatcher (message-sender.ts): each recipient's message in one of the four shapes
// API.md 4.10.1 allows, its button pointing at Tidings's own redirect (clicks are ours to count: Vonage reports
// none), sent through the Viber channel (a provider or capture). A message the provider took waits, as sent, for
// its reports until its live time ends (services/viber/reports.ts); one it refused for good ends as not sent
// (paid back) and, with resend_sms, gets its SMS instead.
import type { Kysely } from 'kysely'
import type { ClaimedMessage } from '../storage/repos/message-queue.js'
import { MESSAGE_STATUS } from '../storage/repos/messages.js'
import { applyReports } from '../storage/repos/viber-messages.js'
import type { Database } from '../storage/tables.js'
import type { OutboundViber, ViberChannel, ViberSendResult } from '../delivery/viber/channel.js'
import { MESSAGE_TYPE, readViberOptions, type ViberCampaignOptions } from '../services/viber/campaign-input.js'
import { buttonToken } from '../services/viber/reports.js'
import { sendSmsInstead } from '../services/viber/sms-instead.js'
import { perCampaignCache } from '../services/sending/campaign-cache.js'
import type { Deps } from '../services/types.js'
import type { ChannelDriver, Outcome } from './message-sender.js'

interface PreparedViber {
  sender: string
  text: string | null
  options: ViberCampaignOptions
}

const MAX_ERROR_LENGTH = 1000

/** A send's answer with what recording it needs of its message: how long it lives, when a throttled one may come back. */
type ViberAnswer = ViberSendResult & { ttlSeconds: number; notBefore?: number }

export function viberDriver(deps: Pick<Deps, 'config' | 'now'>, channel: ViberChannel): ChannelDriver<PreparedViber, OutboundViber, ViberAnswer, Outcome> {
  const prepared = perCampaignCache((campaign): PreparedViber => ({ sender: campaign.senderName, text: campaign.body === '' ? null : campaign.body, options: readViberOptions(campaign.channelOptions) }))
  const buttonBase = `${deps.config.publicUrl.replace(/\/+$/, '')}/v/`
  return {
    channel: 'viber',
    name: channel.name,
    prepare: prepared,
    render(p, message, key): OutboundViber {
      const { button, imageUrl, messageType, liveSeconds } = p.options
      return {
        messageId: message.id,
        to: message.address,
        from: p.sender,
        category: messageType === MESSAGE_TYPE.system ? 'transaction' : 'promotion',
        text: p.text,
        imageUrl,
        button: button && { text: button.text, url: buttonBase + buttonToken(key, message.id) },
        ttlSeconds: liveSeconds,
      }
    },
    units: () => 1,
    async send(batch) {
      const results = await channel.send(batch)
      const now = deps.now()
      return batch.map((outbound, i): ViberAnswer => {
        const result = results[i] ?? { ok: false, retryable: true, reason: 'no answer from the Viber channel' }
        const notBefore = !result.ok && result.retryAfterMs !== undefined ? now + result.retryAfterMs : undefined
        return { ...result, ttlSeconds: outbound.ttlSeconds, notBefore }
      })
    },
    outcomeOf(message: ClaimedMessage, result: ViberAnswer, now: number) {
      if (!result.ok) return { recorded: { id: message.id, kind: 'final', status: MESSAGE_STATUS.notSent, error: result.reason.slice(0, MAX_ERROR_LENGTH) } }
      const until = now + result.ttlSeconds * 1000
      return { recorded: { id: message.id, kind: 'awaiting', captured: result.captured === true, providerId: result.providerId, until } }
    },
    retryOf(message: ClaimedMessage, result: ViberAnswer, retryAt: number) {
      const error = result.ok ? '' : result.reason.slice(0, MAX_ERROR_LENGTH)
      // A provider that said how long to wait (429 Retry-After) is not asked sooner.
      return { recorded: { id: message.id, kind: 'retry', error, retryAt: Math.max(retryAt, result.notBefore ?? 0) } }
    },
    // A refusal's SMS instead is paid from the account, under its campaign's lock and then the account's.
    afterRecordLocksCampaigns: true,
    async afterRecord(tx: Kysely<Database>, held, _campaigns, now) {
      // Reports that came before this recording apply now; refusals get their SMS instead.
      const sent = held.filter((h) => h.recorded.kind === 'awaiting').map((h) => h.message.id)
      const undelivered = await applyReports(tx, sent, now)
      const refused = held.filter((h) => h.recorded.kind === 'final' && h.recorded.status === MESSAGE_STATUS.notSent).map(({ message: m }) => ({
        id: m.id,
        campaignId: m.campaignId,
        accountId: m.accountId,
        address: m.address,
        variables: m.variables,
        bookId: m.bookId,
      }))
      await sendSmsInstead(tx, deps, [...undelivered, ...refused], now)
    },
  }
}
