// A query compiled once runs with each call's parameters, on both databases (one prepared query serves both:
// each database gets its own SQL), inside transactions too.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type Kysely, type KyselyPlugin } from 'kysely'
import { DIALECTS, createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { prepareQuery } from '../../../src/storage/prepared-query.js'
import type { Database } from '../../../src/storage/tables.js'

const accountsNamed = prepareQuery<{ name: string; minId: number }, { id: number; name: string; currency: string }>((db, param) =>
  db
    .selectFrom('accounts')
    .select(['id', 'name', 'currency'])
    // A value fixed when the query is built stays as it was.
    .where('currency', '=', 'EUR')
    .where((eb) => eb.or([eb('name', '=', param('name')), eb('client_id', '=', param('name'))]))
    .where('id', '>=', param('minId'))
    .orderBy('id'),
)

for (const dialect of DIALECTS) {
  describe(`prepared queries on ${dialect}`, () => {
    let database: TestDatabase
    let db: Kysely<Database>
    const ids: Record<string, number> = {}
    before(async () => {
      database = await createTestDatabase(dialect)
      db = database.storage.db
      const now = Date.now()
      for (const [name, currency] of [['ann', 'EUR'], ['bob', 'EUR'], ['cid', 'USD']] as const) {
        const row = await db
          .insertInto('accounts')
          .values({ name, client_id: `client-${name}`, client_secret_hash: 'x', currency, plan: 'pro', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
        ids[name] = Number(row.id)
      }
    })
    after(() => database.drop())

    it('runs with the parameters of each call, a parameter used twice filled in both places', async () => {
      const names = async (name: string, minId = 0) => (await accountsNamed.execute(db, { name, minId })).map((r) => r.name)
      assert.deepEqual(await names('ann'), ['ann'])
      assert.deepEqual(await names('client-bob'), ['bob'])
      assert.deepEqual(await names('bob', ids.bob! + 1), [])
      assert.deepEqual(await names('cid'), [], 'the fixed currency still applies')
      assert.equal((await accountsNamed.executeTakeFirst(db, { name: 'ann', minId: 0 }))?.id, ids.ann)
      assert.equal(await accountsNamed.executeTakeFirst(db, { name: 'nobody', minId: 0 }), undefined)
    })

    it('runs inside a transaction, seeing its uncommitted rows', async () => {
      await db.transaction().execute(async (tx) => {
        const now = Date.now()
        await tx.insertInto('accounts').values({ name: 'dan', client_id: 'client-dan', client_secret_hash: 'x', currency: 'EUR', plan: 'pro', created_at: now, updated_at: now }).execute()
        assert.equal((await accountsNamed.execute(tx, { name: 'dan', minId: 0 })).length, 1)
      })
    })

    it("does not read what another caller's open transaction has not committed", async () => {
      let outside: Promise<unknown[]> | undefined
      await assert.rejects(
        db.transaction().execute(async (tx) => {
          const now = Date.now()
          await tx.insertInto('accounts').values({ name: 'eve', client_id: 'client-eve', client_secret_hash: 'x', currency: 'EUR', plan: 'pro', created_at: now, updated_at: now }).execute()
          outside = accountsNamed.execute(db, { name: 'eve', minId: 0 })
          await new Promise((resolve) => setTimeout(resolve, 20))
          throw new Error('rolled back')
        }),
        /rolled back/,
      )
      assert.deepEqual(await outside, [])
    })

    if (dialect === 'postgres') {
      it('runs as a statement PostgreSQL prepared once on the connection, not parsed and planned on each call', async () => {
        await db.transaction().execute(async (tx) => {
          await accountsNamed.execute(tx, { name: 'ann', minId: 0 })
          await accountsNamed.execute(tx, { name: 'bob', minId: 0 })
          const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(tx)
          assert.equal(rows.filter((r) => r.statement.includes('from "accounts"') && r.statement.includes('"currency" = $1')).length, 1, JSON.stringify(rows))
        })
      })
    }

    it('lets a plugin of the database rewrite the query and its rows', async () => {
      const seen: string[] = []
      const plugin: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          seen.push('result')
          return { ...args.result, rows: args.result.rows.map((row) => ({ ...row, name: String(row.name).toUpperCase() })) }
        },
      }
      const rows = await accountsNamed.execute(db.withPlugin(plugin), { name: 'ann', minId: 0 })
      assert.deepEqual(rows.map((r) => r.name), ['ANN'])
      assert.deepEqual(seen, ['result'])
      assert.deepEqual((await accountsNamed.execute(db, { name: 'ann', minId: 0 })).map((r) => r.name), ['ann'])
    })

    it('refuses a parameter that the built query does not bind', async () => {
      const dropped = prepareQuery<{ name: string }, { id: number }>((kysely, param) => {
        const named = kysely.selectFrom('accounts').select('id').where('name', '=', param('name'))
        return named.clearWhere()
      })
      await assert.rejects(dropped.execute(db, { name: 'ann' }), /parameter name is not bound/)
    })
  })
}
