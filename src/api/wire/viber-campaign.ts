// Viber campaigns as the wire shows them (API.md 2.10, 3.5; COMPAT.md "SMS and Viber" 2, 4, 5): the published
// names, ints for ids and phones, null for what was not given, dates as YYYY-MM-DD HH:MM:SS.
import { CAMPAIGN_STATUS, type CampaignRow } from '../../storage/repos/campaigns.js'
import { MESSAGE_STATUS } from '../../storage/repos/messages.js'
import type { ViberRecipientRow } from '../../storage/repos/viber-messages.js'
import { readViberOptions } from '../../services/viber/campaign-input.js'
import { microsToNumber } from '../../lib/money.js'
import { toWireDate } from '../../lib/wire-date.js'

/** API.md 3.5 from a Viber message's statistic code; null while it waits to be sent. */
export function viberStatusOf(status: number): string | null {
  switch (status) {
    case MESSAGE_STATUS.sent:
      return 'send'
    case MESSAGE_STATUS.delivered:
      return 'delivered'
    case MESSAGE_STATUS.opened:
      return 'delivered and read'
    case MESSAGE_STATUS.redirected:
      return 'read and a clickthrough followed'
    case MESSAGE_STATUS.unavailable:
      return 'not delivered'
    case MESSAGE_STATUS.notSent:
      return 'error'
    default:
      return null
  }
}

function campaignStatus(c: CampaignRow, now: number): string {
  switch (c.status) {
    case CAMPAIGN_STATUS.pending:
      return 'moderation'
    case CAMPAIGN_STATUS.sending:
      return c.sendAt > now ? 'scheduled' : 'sending'
    case CAMPAIGN_STATUS.sent:
      return 'sent'
    case CAMPAIGN_STATUS.blocked:
      return 'rejected'
    default:
      return 'canceled'
  }
}

export function toCreatedViberCampaign(c: CampaignRow) {
  const o = readViberOptions(c.channelOptions)
  return {
    address_book_id: c.listIds[0] ?? null,
    button_link: o.button?.link ?? null,
    button_text: o.button?.text ?? null,
    image_link: o.imageUrl,
    message: c.body,
    message_live_time: String(o.liveSeconds),
    message_type: o.messageType,
    resend_sms: o.resendSms ? 1 : 0,
    send_date: toWireDate(c.sendAt),
    sender_id: o.senderId,
    sms_sender_name: o.resendSms?.sender ?? null,
    sms_text: o.resendSms?.text ?? null,
    stretch_time: o.stretchSeconds / 3600,
    task_id: c.id,
    task_name: c.name,
  }
}

function listedFields(c: CampaignRow, now: number) {
  const o = readViberOptions(c.channelOptions)
  return {
    id: c.id,
    name: c.name,
    message: c.body,
    button_text: o.button?.text ?? null,
    button_link: o.button?.link ?? null,
    image_link: o.imageUrl,
    address_book: c.listIds[0] ?? null,
    sender_name: c.senderName,
    sender_id: o.senderId,
    message_live_time: o.liveSeconds,
    send_date: toWireDate(c.sendAt),
    status: campaignStatus(c, now),
    created: toWireDate(c.createdAt),
  }
}

export function toListedViberCampaign(c: CampaignRow, now: number) {
  return { ...listedFields(c, now), address_book_id: c.listIds[0] ?? null }
}

type Counts = readonly { channel: string; status: number; count: number }[]

function count(counts: Counts, channel: string, statuses: readonly number[]): number {
  return counts.filter((c) => c.channel === channel && statuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0)
}

const S = MESSAGE_STATUS
const DELIVERED = [S.delivered, S.opened, S.redirected]

export function toViberStatistics(c: CampaignRow, counts: Counts, now: number) {
  const o = readViberOptions(c.channelOptions)
  const sms = {
    total: count(counts, 'sms', Object.values(S)),
    queued: count(counts, 'sms', [S.queued, S.retrying]),
    sent: count(counts, 'sms', [S.sent]),
    delivered: count(counts, 'sms', [S.delivered]),
    undelivered: 0,
  }
  sms.undelivered = sms.total - sms.queued - sms.sent - sms.delivered
  const listed = listedFields(c, now)
  return {
    ...listed,
    address_book_ids: c.listIds.length > 0 ? c.listIds : null,
    sent_date: listed.send_date,
    stretch_time: o.stretchSeconds / 3600,
    resend_sms: o.resendSms !== null,
    resend_sms_status: o.resendSms === null ? null : sms.total === 0 ? 0 : sms.queued > 0 ? 1 : 2,
    resend_sms_statistic: o.resendSms === null ? null : sms,
    statistic: {
      sent: count(counts, 'viber', [S.sent, ...DELIVERED, S.unavailable]),
      delivered: count(counts, 'viber', DELIVERED),
      read: count(counts, 'viber', [S.opened, S.redirected]),
      redirected: count(counts, 'viber', [S.redirected]),
      undelivered: count(counts, 'viber', [S.unavailable]),
      errors: count(counts, 'viber', [S.notSent]),
    },
  }
}

export function toViberRecipient(r: ViberRecipientRow, currency: string) {
  const sent = r.sentAt === null ? null : toWireDate(r.sentAt)
  return {
    phone: Number(r.phone),
    address_book_id: r.bookId,
    status: viberStatusOf(r.status),
    send_date: sent,
    sent_date: sent,
    price: microsToNumber(r.priceMicros),
    currency,
    last_update: toWireDate(r.updatedAt),
  }
}
