// SMS campaigns as the wire shows them (API.md 2.11, 3.4; COMPAT.md "SMS and Viber" 4–5).
import type { CampaignRow } from '../../storage/repos/campaigns.js'
import { MESSAGE_STATUS } from '../../storage/repos/messages.js'
import type { NumberStatus } from '../../storage/repos/sms-campaigns.js'
import { microsToNumber } from '../../lib/money.js'
import { toWireDate } from '../../lib/wire-date.js'

/** A number's status of API.md 3.4 from its message's statistic code. */
export function smsStatusOf(messageStatus: number): 0 | 1 | 2 | 12 {
  switch (messageStatus) {
    case MESSAGE_STATUS.queued:
    case MESSAGE_STATUS.retrying:
      return 0
    case MESSAGE_STATUS.sent:
      return 1
    case MESSAGE_STATUS.delivered:
      return 2
    default:
      return 12
  }
}

const EXPLAIN = { 0: 'Ready to send', 1: 'Sent', 2: 'Delivered', 12: 'Not delivered' } as const

export function toListedSmsCampaign(c: CampaignRow) {
  return {
    id: c.id,
    address_book_id: c.listIds[0] ?? 0,
    company_price: microsToNumber(c.chargedMicros),
    company_currency: c.currency,
    send_date: toWireDate(c.sendAt),
    date_created: toWireDate(c.createdAt),
    sender_name: c.senderName,
    // Read by the Go SDK; an SMS campaign has no mail sender.
    sender_mail_address: '',
    sender_mail_name: '',
  }
}

export function toSmsCampaignInfo(c: CampaignRow, numbers: readonly NumberStatus[]) {
  return {
    id: c.id,
    address_book_id: c.listIds[0] ?? 0,
    currency: c.currency,
    company_price: microsToNumber(c.chargedMicros),
    send_date: toWireDate(c.sendAt),
    date_created: toWireDate(c.createdAt),
    sender_name: c.senderName,
    task_phones_info: numbers.map((n) => {
      const status = smsStatusOf(n.status)
      const country = n.country ?? ''
      // A message never sent was given back: it cost nothing.
      const spent = n.status === MESSAGE_STATUS.notSent ? 0 : microsToNumber(n.priceMicros)
      return { phone: Number(n.phone), status, status_explain: EXPLAIN[status], сountry_code: country, country_code: country, money_spent: spent }
    }),
  }
}
