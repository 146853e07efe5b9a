// Instance-wide values in the `settings` table, generated once and shared by every process.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export async function findSetting(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst()
  return row?.value
}

/** Stores `value` unless the key already has one: the first writer wins, so processes racing here agree. */
export async function insertSettingIfAbsent(db: Kysely<Database>, setting: { key: string; value: string; now: number }): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: setting.key, value: setting.value, updated_at: setting.now })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute()
}

/** Stores `value`, replacing the key's old one (for values that change, such as the time a clean-up last ran). */
export async function writeSetting(db: Kysely<Database>, setting: { key: string; value: string; now: number }): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: setting.key, value: setting.value, updated_at: setting.now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: setting.value, updated_at: setting.now }))
    .execute()
}
