// The keys that sign links in emails and hash one-time codes. New tokens are signed with TIDINGS_SECRET_KEY
// when set, otherwise with a random key generated once per database and kept in `settings`. Tokens verify with
// the signing key and with TIDINGS_SECRET_KEY_OLD (rotation).
//
// Why the generated key lives in the database and not in a file of the data directory: with PostgreSQL any
// number of `serve` and `worker` processes, on any number of hosts, must sign alike, and the database is the
// one thing they share (a file per host would give each its own key, and a link sent by a worker would not
// verify on the API process that receives the click). With SQLite the database file is in the data directory
// anyway. Once a key is configured the generated one verifies only with TIDINGS_SECRET_KEY_OLD=generated: it
// sits in every database backup, and a key that kept verifying on its own could never be retired after a leak.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import * as settingsRepo from '../storage/repos/settings.js'
import type { Database } from '../storage/tables.js'
import type { Deps } from '../services/types.js'

const SETTING_KEY = 'signing_key'
/** 256 bits, the output size of HMAC-SHA256 (RFC 2104 §3: a longer key adds no strength). */
const GENERATED_KEY_BYTES = 32

type KeyDeps = Pick<Deps, 'config' | 'db' | 'now'>

const generated = new WeakMap<Kysely<Database>, Promise<Buffer>>()
const stored = new WeakMap<Kysely<Database>, Promise<Buffer | undefined>>()

/**
 * The key that signs new tokens. `db` may be a transaction of the caller (on SQLite a query on `deps.db` would
 * wait for that transaction's connection forever): a key read or created there is not cached, since the
 * transaction may still roll back and take a freshly inserted key with it.
 */
export async function signingKey(deps: KeyDeps, db: Kysely<Database> = deps.db): Promise<Buffer> {
  return deps.config.secretKey ? Buffer.from(deps.config.secretKey, 'utf8') : generatedKey(deps, db)
}

/** The TIDINGS_SECRET_KEY_OLD value that names the generated key rather than spelling a key. */
const OLD_KEY_IS_GENERATED = 'generated'

/** Every key a token may have been signed with, the signing key first. */
export async function verifyingKeys(deps: KeyDeps): Promise<Buffer[]> {
  const { secretKey, secretKeyOld } = deps.config
  const oldIsGenerated = secretKeyOld === OLD_KEY_IS_GENERATED
  if (!secretKey) {
    const old = secretKeyOld && !oldIsGenerated ? [Buffer.from(secretKeyOld, 'utf8')] : []
    return [await generatedKey(deps, deps.db), ...old]
  }
  const configured = Buffer.from(secretKey, 'utf8')
  if (!secretKeyOld) return [configured]
  if (!oldIsGenerated) return [configured, Buffer.from(secretKeyOld, 'utf8')]
  const kept = await storedKey(deps.db)
  return kept ? [configured, kept] : [configured]
}

function generatedKey(deps: KeyDeps, db: Kysely<Database>): Promise<Buffer> {
  const cached = generated.get(deps.db)
  if (cached) return cached
  if (db.isTransaction) return loadOrCreate(db, deps.now())
  const loading = loadOrCreate(db, deps.now())
  generated.set(deps.db, loading)
  loading.catch(() => generated.delete(deps.db))
  return loading
}

/** The generated key if the database holds one; never creates it (a configured key signs). */
function storedKey(db: Kysely<Database>): Promise<Buffer | undefined> {
  const cached = stored.get(db)
  if (cached) return cached
  const loading = settingsRepo.findSetting(db, SETTING_KEY).then((value) => (value === undefined ? undefined : Buffer.from(value, 'base64url')))
  stored.set(db, loading)
  loading.catch(() => stored.delete(db))
  return loading
}

async function loadOrCreate(db: Kysely<Database>, now: number): Promise<Buffer> {
  let value = await settingsRepo.findSetting(db, SETTING_KEY)
  if (value === undefined) {
    await settingsRepo.insertSettingIfAbsent(db, { key: SETTING_KEY, value: randomBytes(GENERATED_KEY_BYTES).toString('base64url'), now })
    value = await settingsRepo.findSetting(db, SETTING_KEY)
    if (value === undefined) throw new Error('the signing key could not be stored')
  }
  return Buffer.from(value, 'base64url')
}
