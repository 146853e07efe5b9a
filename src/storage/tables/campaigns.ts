// Table interfaces: Campaigns of every channel and their messages (one row per recipient: the queue and the statistics), SMS parts and short links. Conventions: storage/tables.ts.
import type { Generated } from 'kysely'

export interface CampaignsTable {
  id: Generated<number>
  account_id: number
  name: string
  /** API.md 3.3 */
  status: number
  is_test: Generated<number>
  sender_name: string
  sender_email: string
  subject: string
  /** HTML, a Handlebars template of the contact's variables */
  body: string
  body_amp: string | null
  template_id: number | null
  lang: Generated<string>
  /** JSON array of address book ids */
  list_ids: string
  segment_id: number | null
  /** When sending starts (the creation time when not scheduled). */
  send_at: number
  scheduled: Generated<number>
  use_dynamic_list: Generated<number>
  /** JSON array of {filename, content (Base64)} */
  attachments: Generated<string>
  track_opens: Generated<number>
  track_clicks: Generated<number>
  utm_campaign: string | null
  all_email_qty: Generated<number>
  tariff_email_qty: Generated<number>
  paid_email_qty: Generated<number>
  /** Contacts of the lists left out: not active, blacklisted or on two lists. */
  skipped_qty: Generated<number>
  price_micros: Generated<number>
  /** What the ledger holds written off for this campaign, after refunds. */
  charged_micros: Generated<number>
  currency: string
  started_at: number | null
  finished_at: number | null
  /** 'email', 'sms' or 'viber' */
  channel: Generated<string>
  /** JSON: the channel's own settings (SMS: services/sms/campaign-input.ts, Viber: services/viber/campaign-input.ts) */
  channel_options: Generated<string>
  created_at: number
  updated_at: number
}

export interface CampaignListsTable {
  campaign_id: number
  address_book_id: number
}

export interface MessagesTable {
  id: Generated<number>
  campaign_id: number
  account_id: number
  contact_id: number | null
  address_book_id: number | null
  /** The recipient: an email address, or a number's E.164 digits (SMS) */
  address: string
  /** 'email', 'sms' or 'viber': each channel claims its own rows (a Viber campaign's fallback SMS are 'sms') */
  channel: Generated<string>
  /** What this message was charged (SMS); null where the campaign's price is per message (email) */
  price_micros: number | null
  /** SMS parts (segments): delivered when every part is */
  parts: number | null
  /** JSON object: the contact's variables when the campaign was created */
  variables: Generated<string>
  /** statistics.general code (API.md 3.3): 0 in queue, 7 waiting for a retry, the rest final */
  status: Generated<number>
  /** 1 while the dispatcher may claim the row */
  queued: Generated<number>
  attempts: Generated<number>
  next_attempt_at: Generated<number>
  locked_until: number | null
  /** The claim that holds the lease: only it may renew the lease or record the message's result */
  lease_token: string | null
  provider_id: string | null
  last_error: string | null
  sent_at: number | null
  opened_at: number | null
  clicked_at: number | null
  unsubscribed_at: number | null
  /** ISO 3166 code of the first open's client address */
  country: string | null
  /** Viber: the provider's latest report (repos/viber-messages.ts VIBER_REPORT), written even while the submit is in flight */
  report: string | null
  /** An SMS sent instead of a Viber message (resend_sms): that message's id */
  fallback_of: number | null
  updated_at: number
}

/** A submitted SMS part by the SMSC's id; a receipt that came first waits here with message_id null. */
export interface SmsPartsTable {
  provider_id: string
  message_id: number | null
  /** The receipt's state (delivery/sms/channel.ts DeliveryReceipt), null until one came */
  state: string | null
  error: string | null
  received_at: number | null
  created_at: number
}

/** A tracked link of an SMS campaign: TIDINGS_PUBLIC_URL/s/{code} redirects to url. */
export interface ShortLinksTable {
  code: string
  campaign_id: number
  url: string
  created_at: number
}

export interface CampaignLinkClicksTable {
  campaign_id: number
  link: string
  clicks: number
}

/**
 * A campaign's messages counted per channel and status, kept by triggers on `messages` (migration 0014): the
 * counts of a key are the sum of its rows (one per key on SQLite; differences, folded now and then, on PostgreSQL,
 * where the rows also have an `id` no reader needs).
 */
export interface CampaignCountsTable {
  campaign_id: number
  channel: string
  status: number
  messages: number
  /** Of those messages: with sent_at, opened_at, clicked_at, unsubscribed_at set */
  sent: number
  opened: number
  clicked: number
  unsubscribed: number
}

/**
 * An account's emails per UTC day, kept by triggers on `messages` (migration 0020): each answered email counted on
 * the day of its answer; the counts of a key are the sum of its rows (one per key on SQLite; differences, folded now
 * and then, on PostgreSQL, where the rows also have an `id` no reader needs).
 */
export interface EmailDayCountsTable {
  account_id: number
  /** Days since 1970-01-01, UTC */
  day: number
  /** Answered by a mail server */
  sent: number
  delivered: number
  opened: number
  clicked: number
  bounced: number
  complained: number
}
