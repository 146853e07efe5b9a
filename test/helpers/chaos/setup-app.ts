// The test's own view of the chaos database: the API in-process (inject) over a database the test owns, on the
// real clock (the `tidings` processes run on it too), to set up accounts and read the outcome. Never used while
// the database is away.
import pino from 'pino'
import { loadConfig } from '../../../src/config/load.js'
import type { Config } from '../../../src/config/schema.js'
import { buildServer } from '../../../src/api/server.js'
import { openDatabase } from '../../../src/storage/db.js'
import { migrateToLatest } from '../../../src/storage/migrate.js'
import type { Deps } from '../../../src/services/types.js'
import type { TestApp } from '../app.js'
import { createAccount, renewToken } from '../factories.js'

export async function startSetupApp(databaseUrl: string, overrides: Partial<Config>, drop: () => Promise<void>): Promise<TestApp> {
  const storage = openDatabase(databaseUrl)
  await migrateToLatest(storage.db as never)
  const config = loadConfig({ env: {}, overrides: { databaseUrl, logLevel: 'silent', apiRatePerSecond: 0, ...overrides } })
  const clock = { now: Date.now(), advance: (ms: number) => void (clock.now += ms) }
  const deps: Deps = { config, db: storage.db, now: () => Date.now(), log: pino({ level: 'silent' }) }
  const app = await buildServer(deps)
  await app.ready()
  return {
    app,
    deps,
    database: { url: databaseUrl, storage, drop },
    clock,
    account: (name) => createAccount(deps, app, name),
    call: async (account, options) => {
      if (Date.now() >= account.tokenIssuedAt + (config.tokenTtlSeconds - 60) * 1000) await renewToken(deps, app, account)
      return app.inject({ ...options, headers: { authorization: `Bearer ${account.token}`, ...options.headers } })
    },
    close: async () => {
      await app.close()
      await storage.close()
      await drop()
    },
  }
}
