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
  created_at: number
  updated_at: number
}

export interface AccessTokensTable {
  token_hash: string
  account_id: number
  expires_at: number
  created_at: number
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

export interface SettingsTable {
  key: string
  value: string
  updated_at: number
}

export interface Database {
  accounts: AccountsTable
  access_tokens: AccessTokensTable
  api_keys: ApiKeysTable
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
}
