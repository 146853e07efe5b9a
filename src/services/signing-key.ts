// The key that signs links in emails and hashes one-time codes: TIDINGS_SECRET_KEY when set, otherwise a random
// key generated once per database and kept in `settings`, so every process (and every restart) signs alike.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import * as settingsRepo from '../storage/repos/settings.js'
import type { Database } from '../storage/tables.js'
import type { Deps } from './types.js'

const SETTING_KEY = 'signing_key'

const cache = new WeakMap<Kysely<Database>, Promise<Buffer>>()

/**
 * The signing key. `db` may be a transaction of the caller (on SQLite a query on `deps.db` would wait for that
 * transaction's connection forever): a key read or created there is not cached, since the transaction may
 * still roll back and take a freshly inserted key with it.
 */
export async function signingKey(deps: Pick<Deps, 'config' | 'db' | 'now'>, db: Kysely<Database> = deps.db): Promise<Buffer> {
  if (deps.config.secretKey) return Buffer.from(deps.config.secretKey, 'utf8')
  const cached = cache.get(deps.db)
  if (cached) return cached
  if (db.isTransaction) return loadOrCreate(db, deps.now())
  const loading = loadOrCreate(db, deps.now())
  cache.set(deps.db, loading)
  loading.catch(() => cache.delete(deps.db))
  return loading
}

async function loadOrCreate(db: Kysely<Database>, now: number): Promise<Buffer> {
  let stored = await settingsRepo.findSetting(db, SETTING_KEY)
  if (stored === undefined) {
    await settingsRepo.insertSettingIfAbsent(db, { key: SETTING_KEY, value: randomBytes(32).toString('base64url'), now })
    stored = await settingsRepo.findSetting(db, SETTING_KEY)
    if (stored === undefined) throw new Error('the signing key could not be stored')
  }
  return Buffer.from(stored, 'base64url')
}
