// Kysely table interfaces, snake_case as in the database. Times are epoch milliseconds (UTC);
// money is integer micro-units (1e-6 of the currency) so sums are exact on both databases.
import type { Generated } from 'kysely'

export interface AccountsTable {
  id: Generated<number>
  name: string
  client_id: string
  client_secret_hash: string
  currency: string
  plan: string
  /** 1 when the operator allowed AMP bodies (`tidings accounts amp`) */
  amp_allowed: Generated<number>
  /** Signs webhook deliveries (`whsec_…`); made on first use */
  webhook_secret: string | null
  /** Set by `tidings accounts disable` (and delete): no token call, no API call */
  disabled_at: number | null
  /** Set by `tidings accounts delete`: disabled for good, API keys revoked; the data stays */
  deleted_at: number | null
  /** Bumped by every revocation; a token is valid only with its account's current version */
  credentials_version: Generated<number>
  created_at: number
  updated_at: number
}

export interface AccessTokensTable {
  token_hash: string
  account_id: number
  expires_at: number
  /** The account's credentials_version when the token was issued */
  credentials_version: Generated<number>
  created_at: number
}

/** One row (id 1): bumped by every revocation, watched by each process's token cache */
export interface CredentialRevocationsTable {
  id: number
  generation: number
  updated_at: number
}

export interface ApiKeysTable {
  id: Generated<number>
  account_id: number
  name: string
  key_hash: string
  created_at: number
  revoked_at: number | null
}

export interface LedgerEntriesTable {
  id: Generated<number>
  account_id: number
  amount_micros: number
  kind: string
  note: string | null
  created_at: number
}

export interface AddressBooksTable {
  id: Generated<number>
  account_id: number
  name: string
  status: number
  /** Changes whenever contacts leave the list or change status (see repos/contact-counts.ts). */
  contacts_generation: Generated<number>
  created_at: number
  updated_at: number
}

export interface ContactsTable {
  id: Generated<number>
  account_id: number
  address_book_id: number
  email: string
  status: number
  phone: string | null
  variables: string
  /** How the contact arrived: api, import or form (a confirmed double opt-in). */
  source: Generated<string>
  created_at: number
  updated_at: number
}

export interface AddressBookVariablesTable {
  id: Generated<number>
  address_book_id: number
  name: string
  type: string
  created_at: number
}

/** How many contacts of a list have a status, with or without a phone; kept by repos/contacts.ts. */
export interface ContactCountsTable {
  address_book_id: number
  status: number
  /** 1 when the contacts counted have a phone */
  with_phone: number
  count: number
}

export interface TemplatesTable {
  id: Generated<number>
  /** null for the system templates shipped with Tidings */
  account_id: number | null
  /** The string id clients see; a new one on every edit. */
  public_id: string
  name: string
  name_slug: string
  lang: string
  /** HTML */
  body: string
  description: string | null
  category: Generated<string>
  created_at: number
  updated_at: number
}

export interface TagsTable {
  id: Generated<number>
  account_id: number
  name: string
  color: string
  created_at: number
  updated_at: number
}

export interface TagLinksTable {
  tag_id: number
  account_id: number
  /** 'email' or 'phone' */
  kind: string
  value: string
  created_at: number
}

export interface EmailBlacklistTable {
  account_id: number
  email: string
  comment: string | null
  created_at: number
}

export interface SendersTable {
  id: Generated<number>
  account_id: number
  email: string
  name: string
  /** 'inactive' until activated with the emailed code, then 'active' */
  status: string
  code_hash: string | null
  code_expires_at: number | null
  codes_sent: Generated<number>
  codes_window_started_at: number | null
  failed_attempts: Generated<number>
  locked_until: number | null
  created_at: number
  updated_at: number
}

export interface JobsTable {
  id: Generated<number>
  account_id: number | null
  /** The identifier shown to the client (the queue envelope's queue_id). */
  queue_id: string
  kind: string
  /** JSON */
  payload: string
  /** 'queued', 'done' or 'failed' */
  status: string
  attempts: Generated<number>
  run_at: number
  locked_until: number | null
  last_error: string | null
  created_at: number
  updated_at: number
}

export interface OutboxTable {
  id: Generated<number>
  account_id: number
  /** 'confirmation' or 'sender_code' */
  kind: string
  from_email: string
  from_name: string
  to_email: string
  subject: string
  html: string
  text: string
  /** The copy the account is shown (GET /outbox), its secret replaced by [hidden]; null on rows from before 0011. */
  shown_subject: string | null
  shown_html: string | null
  shown_text: string | null
  /** 'queued' until the email channel takes it; then 'sent', 'captured' (no relay configured) or 'failed' */
  status: string
  attempts: Generated<number>
  next_attempt_at: Generated<number>
  /** Set while an outbox sender holds the row. */
  locked_until: number | null
  provider_id: string | null
  last_error: string | null
  sent_at: number | null
  created_at: number
  updated_at: number
}

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
  /** 'email' or 'sms' */
  channel: Generated<string>
  /** JSON: the channel's own settings (SMS: services/sms/campaign-options.ts) */
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
  /** The campaign's channel ('email' or 'sms'): each channel claims its own rows */
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

/** A number of a mailing list (API.md 4.11), apart from its email contacts. */
export interface ListPhonesTable {
  id: Generated<number>
  account_id: number
  address_book_id: number
  /** E.164 digits without the plus */
  phone: string
  /** Contact status codes (repos/contacts.ts CONTACT_STATUS) */
  status: number
  /** JSON object of variable name → value */
  variables: Generated<string>
  created_at: number
  updated_at: number
}

export interface SmsBlacklistTable {
  account_id: number
  phone: string
  description: string | null
  created_at: number
}

/** A sender ID the operator registered for an account: 0 in moderation, 1 active, 2 rejected (API.md 3.4). */
export interface SmsSendersTable {
  id: Generated<number>
  account_id: number
  name: string
  status: number
  created_at: number
  updated_at: number
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

/** A customer's URL; webhooks with the same URL share it, so their events go out together and in order. */
export interface WebhookEndpointsTable {
  id: Generated<number>
  account_id: number
  url: string
  /** After a failed request, when the next may be made. */
  next_attempt_at: Generated<number>
  /** Failed requests since the last that succeeded: the backoff grows with them. */
  failures: Generated<number>
  /** Set while a dispatcher delivers to the endpoint. */
  locked_until: number | null
  created_at: number
  updated_at: number
}

/** A webhook record (API.md 2.9): one action of one endpoint. */
export interface WebhooksTable {
  id: Generated<number>
  account_id: number
  endpoint_id: number
  action: string
  created_at: number
}

export interface EventsTable {
  id: Generated<number>
  account_id: number
  /** API.md 6 */
  action: string
  /** JSON: the fields a receiver gets */
  payload: string
  created_at: number
}

export interface WebhookDeliveriesTable {
  id: Generated<number>
  endpoint_id: number
  event_id: number
  /** queued, delivered or failed */
  status: string
  created_at: number
  finished_at: number | null
  last_error: string | null
}

export interface WebhookAttemptsTable {
  id: Generated<number>
  endpoint_id: number
  started_at: number
  events: number
  status_code: number | null
  latency_ms: number
  error: string | null
}

export interface SettingsTable {
  key: string
  value: string
  updated_at: number
}

export interface Database {
  accounts: AccountsTable
  access_tokens: AccessTokensTable
  api_keys: ApiKeysTable
  credential_revocations: CredentialRevocationsTable
  ledger_entries: LedgerEntriesTable
  address_books: AddressBooksTable
  contacts: ContactsTable
  address_book_variables: AddressBookVariablesTable
  contact_counts: ContactCountsTable
  templates: TemplatesTable
  tags: TagsTable
  tag_links: TagLinksTable
  email_blacklist: EmailBlacklistTable
  senders: SendersTable
  jobs: JobsTable
  outbox: OutboxTable
  settings: SettingsTable
  campaigns: CampaignsTable
  campaign_lists: CampaignListsTable
  messages: MessagesTable
  campaign_link_clicks: CampaignLinkClicksTable
  sms_parts: SmsPartsTable
  list_phones: ListPhonesTable
  sms_blacklist: SmsBlacklistTable
  sms_senders: SmsSendersTable
  short_links: ShortLinksTable
  webhook_endpoints: WebhookEndpointsTable
  webhooks: WebhooksTable
  events: EventsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
}
