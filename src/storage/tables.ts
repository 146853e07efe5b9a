// Kysely table interfaces, snake_case as in the database. Times are epoch milliseconds (UTC);
// money is integer micro-units (1e-6 of the currency) so sums are exact on both databases.
import type { AccountsTable, AccessTokensTable, CredentialRevocationsTable, ApiKeysTable, ApiRequestBucketsTable, LedgerEntriesTable, ConsoleSessionsTable } from './tables/accounts.js'
import type { AddressBooksTable, ContactsTable, AddressBookVariablesTable, ContactCountsTable, TagsTable, TagLinksTable, EmailBlacklistTable, ListPhonesTable, SmsBlacklistTable, ViberBlacklistTable } from './tables/audience.js'
import type { TemplatesTable, SendersTable, SmsSendersTable, ViberSendersTable, ViberTemplatesTable, OutboxTable, JobsTable, SettingsTable } from './tables/content.js'
import type { CampaignsTable, CampaignListsTable, MessagesTable, SmsPartsTable, ShortLinksTable, CampaignLinkClicksTable, CampaignCountsTable, EmailDayCountsTable } from './tables/campaigns.js'
import type { WebhookEndpointsTable, WebhooksTable, EventsTable, WebhookDeliveriesTable, WebhookAttemptsTable } from './tables/webhooks.js'
import type { WorkersTable, SendRateBucketsTable } from './tables/operations.js'
export type * from './tables/accounts.js'
export type * from './tables/audience.js'
export type * from './tables/content.js'
export type * from './tables/campaigns.js'
export type * from './tables/webhooks.js'
export type * from './tables/operations.js'

export interface Database {
  accounts: AccountsTable
  access_tokens: AccessTokensTable
  api_keys: ApiKeysTable
  credential_revocations: CredentialRevocationsTable
  ledger_entries: LedgerEntriesTable
  api_request_buckets: ApiRequestBucketsTable
  console_sessions: ConsoleSessionsTable
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
  campaign_counts: CampaignCountsTable
  email_day_counts: EmailDayCountsTable
  sms_parts: SmsPartsTable
  list_phones: ListPhonesTable
  sms_blacklist: SmsBlacklistTable
  sms_senders: SmsSendersTable
  short_links: ShortLinksTable
  viber_senders: ViberSendersTable
  viber_templates: ViberTemplatesTable
  viber_blacklist: ViberBlacklistTable
  webhook_endpoints: WebhookEndpointsTable
  webhooks: WebhooksTable
  events: EventsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  workers: WorkersTable
  send_rate_buckets: SendRateBucketsTable
}
