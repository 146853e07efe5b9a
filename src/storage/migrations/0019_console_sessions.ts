// Issue 21: the web console's sign-in sessions. A session stands for the credential it was opened with (the account's
// client secret or one of its API keys), kept server-side so that signing out ends it at once: the browser holds only
// a random id in an HttpOnly cookie, and this table holds the id's SHA-256 digest, never the id itself.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('session_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // The API key signed in with, or null for the client secret: revoking that key ends the session.
    .addColumn('api_key_id', 'bigint')
    // The account's credentials_version at sign-in: rotate-secret, revoke-tokens, disable and delete end the session.
    .addColumn('credentials_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Moved forward at most once a minute by the session's requests: the idle expiry counts from here.
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    // The absolute expiry, fixed at sign-in.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  // The periodic purge deletes by expiry.
  await db.schema.createIndex('console_sessions_expires_at').on('console_sessions').column('expires_at').execute()
  // A sign-in keeps the account's newest sessions only (repos/console-sessions.ts keepNewestConsoleSessions).
  await db.schema.createIndex('console_sessions_account').on('console_sessions').columns(['account_id', 'created_at']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
