// What the campaign pages share: a campaign as GET /campaigns and GET /campaigns/{id} give it (API.md 2.3), its
// status in words (API.md 3.3), and the times the API reads and writes (`YYYY-MM-DD HH:MM:SS`, UTC:
// src/services/email/campaign-input.ts sendTimeOf).

export interface CampaignTotals {
  sent: number
  delivered: number
  opening: number
  link_redirected: number
  unsubscribe: number
  error: number
}

export interface CampaignItem {
  id: number
  name: string
  status: number
  send_date: string
  all_email_qty: number
  message: { sender_name: string; sender_email: string; subject: string; list_id: number }
  statistics: CampaignTotals
}

/** The full record; its statistics carry the list item's totals too (a Tidings extension). */
export interface Campaign extends Omit<CampaignItem, 'statistics'> {
  skipped_email_qty: number
  statistics: CampaignTotals & { general: { code: number; count: number; explain: string }[] }
}

const STATUS_WORDS: Record<number, string> = {
  0: 'New',
  1: 'Waiting for moderation',
  2: 'Sending',
  3: 'Sent',
  4: 'Test being sent',
  5: 'Blocked by the service',
  8: 'Test sent',
  12: 'No active addresses',
  13: 'Copying recipients',
  16: 'Canceled',
  26: 'Draft',
}

/** Statuses in which messages may still go out: the detail page polls while the campaign is in one. */
const UNFINISHED: readonly number[] = [1, 2, 4, 13]
/** Statuses the API cancels from (src/storage/repos/campaigns.ts OPEN_STATUSES). */
const CANCELABLE: readonly number[] = [1, 2, 4, 13, 26]
/** Per-message codes (statistics.general) of messages not sent yet: in queue, or to be tried again. */
const QUEUED_CODES: readonly number[] = [0, 7]

export const isFinished = (status: number): boolean => !UNFINISHED.includes(status)
export const isCancelable = (status: number): boolean => CANCELABLE.includes(status)

/** Scheduled: not finished, and its sending time (UTC) is still ahead. */
export function isScheduled(campaign: { status: number; send_date: string }, now = Date.now()): boolean {
  return !isFinished(campaign.status) && utcMillisOf(campaign.send_date) > now
}

export function statusWords(campaign: { status: number; send_date: string }): string {
  if (isScheduled(campaign)) return `Scheduled for ${campaign.send_date} UTC`
  return STATUS_WORDS[campaign.status] ?? `Status ${campaign.status}`
}

/** Messages with a final status: the progress bar's value, out of all_email_qty. */
export function messagesDone(campaign: Campaign): number {
  return campaign.statistics.general.filter((g) => !QUEUED_CODES.includes(g.code)).reduce((sum, g) => sum + g.count, 0)
}

/** `YYYY-MM-DD HH:MM:SS` read as UTC; NaN when it is not one. */
export function utcMillisOf(wire: string): number {
  const match = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(wire)
  return match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!) : NaN
}

/**
 * A `datetime-local` input's value (the browser's own time zone) as the API's send_date, in UTC: 2026-11-25T09:30
 * entered in Kolkata (UTC+5:30) is 2026-11-25 04:00:00.
 */
export function sendDateOf(localValue: string): string | undefined {
  const at = new Date(localValue)
  if (localValue === '' || Number.isNaN(at.getTime())) return undefined
  return at.toISOString().slice(0, 19).replace('T', ' ')
}
