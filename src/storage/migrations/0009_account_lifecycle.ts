// Account lifecycle (issue 16): an account can be disabled or deleted, its secret rotated and its tokens
// revoked. A token is valid only while its account is enabled and holds the credentials version the token
// was issued under; every revocation bumps one counter that each process's token cache watches.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('disabled_at', 'bigint').execute()
  await db.schema.alterTable('accounts').addColumn('deleted_at', 'bigint').execute()
  // Bumped by rotate-secret, revoke-tokens, disable and delete: a token issued before (even one whose
  // secret check was still running then) no longer matches its account.
  await db.schema.alterTable('accounts').addColumn('credentials_version', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('access_tokens').addColumn('credentials_version', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  // Revocations delete an account's tokens.
  await db.schema.createIndex('access_tokens_account').on('access_tokens').column('account_id').execute()

  // One row: how many revocations there have been. A process drops its token cache when this moved.
  await db.schema
    .createTable('credential_revocations')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await (db as Kysely<{ credential_revocations: { id: number; generation: number; updated_at: number } }>)
    .insertInto('credential_revocations')
    .values({ id: 1, generation: 0, updated_at: 0 })
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
