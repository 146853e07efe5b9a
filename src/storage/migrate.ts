// Runs the numbered, forward-only migrations; the same set serves SQLite and PostgreSQL.
import { Migrator, type Kysely, type Migration } from 'kysely'
import * as m0001 from './migrations/0001_init.js'
import * as m0002 from './migrations/0002_audience.js'
import * as m0003 from './migrations/0003_contact_counts.js'
import * as m0004 from './migrations/0004_templates.js'
import * as m0005 from './migrations/0005_system_templates.js'
import * as m0006 from './migrations/0006_outbox_delivery.js'
import * as m0007 from './migrations/0007_campaigns.js'
import * as m0008 from './migrations/0008_webhooks.js'
import * as m0009 from './migrations/0009_account_lifecycle.js'
import * as m0010 from './migrations/0010_message_lease_token.js'
import * as m0011 from './migrations/0011_outbox_shown_copy.js'
import * as m0012 from './migrations/0012_sms.js'
import * as m0013 from './migrations/0013_viber.js'
import * as m0014 from './migrations/0014_campaign_counts.js'
import * as m0015 from './migrations/0015_messages_due_in_id_order.js'
import * as m0016 from './migrations/0016_api_request_buckets.js'
import * as m0017 from './migrations/0017_workers.js'
import * as m0018 from './migrations/0018_send_rates_and_fairness.js'
import * as m0019 from './migrations/0019_console_sessions.js'
import * as m0020 from './migrations/0020_email_days.js'
import * as m0021 from './migrations/0021_contact_filters.js'
import * as m0022 from './migrations/0022_campaign_report_indexes.js'

const MIGRATIONS: Record<string, Migration> = {
  '0001_init': m0001,
  '0002_audience': m0002,
  '0003_contact_counts': m0003,
  '0004_templates': m0004,
  '0005_system_templates': m0005,
  '0006_outbox_delivery': m0006,
  '0007_campaigns': m0007,
  '0008_webhooks': m0008,
  '0009_account_lifecycle': m0009,
  '0010_message_lease_token': m0010,
  '0011_outbox_shown_copy': m0011,
  '0012_sms': m0012,
  '0013_viber': m0013,
  '0014_campaign_counts': m0014,
  '0015_messages_due_in_id_order': m0015,
  '0016_api_request_buckets': m0016,
  '0017_workers': m0017,
  '0018_send_rates_and_fairness': m0018,
  '0019_console_sessions': m0019,
  '0020_email_days': m0020,
  '0021_contact_filters': m0021,
  '0022_campaign_report_indexes': m0022,
}

function migrator(db: Kysely<unknown>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
}

/** Applies every pending migration and returns the names it applied. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  const { error, results } = await migrator(db).migrateToLatest()
  if (error) throw new Error('database migration failed', { cause: error })
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Applies the pending migrations up to `name`, included: a test of what a migration does to the data before it. */
export async function migrateUpTo(db: Kysely<unknown>, name: string): Promise<void> {
  const { error } = await migrator(db).migrateTo(name)
  if (error) throw new Error(`database migration to ${name} failed`, { cause: error })
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(db: Kysely<unknown>): Promise<string[]> {
  const all = await migrator(db).getMigrations()
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name)
}
