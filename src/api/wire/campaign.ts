// The wire shapes of an email campaign (API.md 2.3, 4.2; types per COMPAT.md "Response shapes").
import type { Campaign } from '../../services/email/campaigns.js'
import type { MessageTotals } from '../../storage/repos/message-stats.js'
import { toWireDate } from '../../lib/wire-date.js'

/** statistics.general codes (API.md 3.3). */
export const MESSAGE_STATUS_TEXT: Record<number, string> = {
  0: 'In queue',
  1: 'Sent',
  2: 'Delivered',
  3: 'Opened',
  4: 'Link redirected',
  5: 'User unsubscribe',
  6: 'Mail server answer: no such email',
  7: 'Temporary unavailable (will be sent later)',
  8: 'Unavailable',
  9: 'Rejected by server as spam',
  10: 'Mailbox is full',
  11: 'Marked as spam by user',
  12: 'Delivery failure',
  13: 'Not sent',
  14: 'Not such domain',
  15: 'Unsubscribe from newsletter',
  16: 'Not valid email',
  17: 'Temporary blocked',
  18: 'Disable by administrator',
  20: 'Already unsubscribed',
}

const DELIVERED: readonly number[] = [2, 3, 4, 5, 11]
const ERRORS: readonly number[] = [6, 8, 9, 10, 12, 14, 16, 17, 18]

const EMPTY_TOTALS: MessageTotals = { byStatus: new Map(), sent: 0, opened: 0, clicked: 0, unsubscribed: 0 }

function countOf(totals: MessageTotals, codes: readonly number[]): number {
  return codes.reduce((sum, code) => sum + (totals.byStatus.get(code) ?? 0), 0)
}

function money(micros: number): number {
  return Math.round(micros / 100) / 1e4
}

function attachmentNames(campaign: Campaign): string {
  return campaign.attachments.map((a) => a.filename).join(', ')
}

function commonFields(campaign: Campaign) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    is_sms: false,
    is_viber: false,
    send_date: toWireDate(campaign.sendAt),
    all_email_qty: campaign.allEmailQty,
    tariff_email_qty: campaign.tariffEmailQty,
    paid_email_qty: campaign.paidEmailQty,
    overdraft_price: money(campaign.priceMicros),
    company_price: (campaign.chargedMicros / 1e6).toFixed(2),
    overdraft_currency: campaign.currency,
  }
}

function messageFields(campaign: Campaign) {
  return {
    sender_name: campaign.senderName,
    sender_email: campaign.senderEmail,
    subject: campaign.subject,
    attachments: attachmentNames(campaign),
    list_id: campaign.listIds[0] ?? 0,
  }
}

/** The list item's statistics (API.md 2.3); the full record carries them too (a Tidings extension). */
function totalsFields(totals: MessageTotals) {
  return {
    sent: totals.sent,
    delivered: countOf(totals, DELIVERED),
    opening: totals.opened,
    link_redirected: totals.clicked,
    unsubscribe: totals.unsubscribed,
    error: countOf(totals, ERRORS),
  }
}

export function toWireCampaignItem(campaign: Campaign, totals = EMPTY_TOTALS) {
  return { ...commonFields(campaign), message: messageFields(campaign), statistics: totalsFields(totals) }
}

export function toWireCampaign(campaign: Campaign, extra: { totals?: MessageTotals; clicks: { link: string; clicks: number }[]; permalink: string }) {
  const totals = extra.totals ?? EMPTY_TOTALS
  return {
    ...commonFields(campaign),
    message: { ...messageFields(campaign), body: campaign.body, preheader: '' },
    external_stat: { check_open_email: campaign.trackOpens, check_redirect_link: campaign.trackClicks },
    permalink: extra.permalink,
    skipped_email_qty: campaign.skippedQty,
    statistics: {
      ...totalsFields(totals),
      general: [...totals.byStatus.entries()]
        .filter(([, count]) => count > 0)
        .sort(([a], [b]) => a - b)
        .map(([code, count]) => ({ code, count, explain: MESSAGE_STATUS_TEXT[code] ?? '' })),
      clicks: extra.clicks.map((c) => ({ url: c.link, count: c.clicks })),
    },
  }
}
