// A real server over a real database for API tests: inject() for most tests, listen() for real clients.
import pino from 'pino'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { loadConfig } from '../../src/config/load.js'
import type { Config } from '../../src/config/schema.js'
import { buildServer } from '../../src/api/server.js'
import type { Dialect } from '../../src/storage/db.js'
import type { Deps } from '../../src/services/types.js'
import { createTestDatabase, type TestDatabase } from './databases.js'
import { createAccount, renewToken, type TestAccount } from './factories.js'

export interface TestApp {
  app: FastifyInstance
  deps: Deps
  database: TestDatabase
  /** A test clock: starts at the real time, moves only when told. */
  clock: { now: number; advance(ms: number): void }
  account(name?: string): Promise<TestAccount>
  /** inject() with the account's bearer token, renewed first when the test clock moved past its lifetime. */
  call(account: TestAccount, options: InjectOptions): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

export async function startTestApp(dialect: Dialect, overrides: Partial<Config> = {}): Promise<TestApp> {
  const database = await createTestDatabase(dialect)
  const config = loadConfig({ env: {}, overrides: { databaseUrl: database.url, logLevel: 'silent', ...overrides } })
  const clock = { now: Date.now(), advance: (ms: number) => void (clock.now += ms) }
  const deps: Deps = { config, db: database.storage.db, now: () => clock.now, log: pino({ level: 'silent' }) }
  const app = await buildServer(deps)
  await app.ready()
  return {
    app,
    deps,
    database,
    clock,
    account: (name) => createAccount(deps, app, name),
    call: async (account, options) => {
      if (clock.now >= account.tokenIssuedAt + (config.tokenTtlSeconds - 60) * 1000) await renewToken(deps, app, account)
      return app.inject({ ...options, headers: { authorization: `Bearer ${account.token}`, ...options.headers } })
    },
    close: async () => {
      await app.close()
      await database.drop()
    },
  }
}
