// Table interfaces: Templates, senders (email) and sender IDs (SMS), the outbox of service emails, the job queue and settings. Conventions: storage/tables.ts.
import type { Generated } from 'kysely'

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

/** A sender ID the operator registered for an account: 0 in moderation, 1 active, 2 rejected (API.md 3.4). */
export interface SmsSendersTable {
  id: Generated<number>
  account_id: number
  name: string
  status: number
  created_at: number
  updated_at: number
}

/** A Viber sender name the operator registered for an account (API.md 2.10): moderation, verified or blocked. */
export interface ViberSendersTable {
  id: Generated<number>
  account_id: number
  name: string
  status: string
  service_type: Generated<string>
  web_site: Generated<string>
  description: Generated<string>
  /** ISO 3166 code, or '' */
  country: Generated<string>
  traffic_type: Generated<string>
  admin_comment: string | null
  created_at: number
  updated_at: number
}

/** A text a system Viber message (message_type 3) must equal once the operator approved it: moderation or approved. */
export interface ViberTemplatesTable {
  id: Generated<number>
  account_id: number
  text: string
  status: string
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

export interface SettingsTable {
  key: string
  value: string
  updated_at: number
}
