// Which database errors mean "PostgreSQL cannot answer now" (the API answers 503, the dispatcher pauses) and
// which mean the query itself failed. The errors are shaped as pg and node:net raise them, and count only when
// the driver raised them (fromDatabase, as the pool of openDatabase notes them): the same socket codes from an
// HTTP client or a webhook receiver are no outage.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect, createServer, type Socket } from 'node:net'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import { fromDatabase, isDatabaseUnavailable, openDatabase } from '../../../src/storage/db.js'
import { freePort } from '../../helpers/postgres.js'

const withCode = (message: string, code: string) => fromDatabase(Object.assign(new Error(message), { code }))
const driverError = (message: string) => fromDatabase(new Error(message))

/** The error a real socket raises when its peer resets the connection (a client that drops mid-request). */
async function realConnectionReset(): Promise<Error> {
  const server = createServer((socket) => socket.resetAndDestroy())
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    const client: Socket = connect((server.address() as { port: number }).port, '127.0.0.1')
    const [err] = (await once(client, 'error').catch((e: unknown) => [e])) as [Error]
    return err
  } finally {
    server.close()
  }
}

describe('isDatabaseUnavailable', () => {
  it('is true for a server that refuses, resets, shuts down, is starting, or has no connection left', () => {
    assert.ok(isDatabaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')))
    assert.ok(isDatabaseUnavailable(withCode('read ECONNRESET', 'ECONNRESET')))
    assert.ok(isDatabaseUnavailable(withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND')))
    assert.ok(isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01')))
    assert.ok(isDatabaseUnavailable(withCode('the database system is starting up', '57P03')))
    assert.ok(isDatabaseUnavailable(withCode('sorry, too many clients already', '53300')))
    assert.ok(isDatabaseUnavailable(withCode('connection failure', '08006')))
  })

  it('is true for a wait that ran out: statement_timeout, query_timeout, connect timeout, a full pool', () => {
    assert.ok(isDatabaseUnavailable(withCode('canceling statement due to statement timeout', '57014')))
    assert.ok(isDatabaseUnavailable(driverError('Query read timeout')))
    assert.ok(isDatabaseUnavailable(driverError('Connection terminated due to connection timeout')))
    assert.ok(isDatabaseUnavailable(driverError('Connection terminated unexpectedly')))
    assert.ok(isDatabaseUnavailable(driverError('timeout exceeded when trying to connect')))
  })

  it('looks into causes and into the attempts of an AggregateError (IPv4 and IPv6)', () => {
    assert.ok(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED') })))
    assert.ok(isDatabaseUnavailable(fromDatabase(new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], ''))))
  })

  it('is true for a SQLite file another process kept locked beyond busy_timeout', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tidings-busy-')), 'busy.db')
    const holder = new Database(path)
    const waiter = new Database(path)
    try {
      waiter.pragma('busy_timeout = 0')
      holder.exec('begin immediate')
      const busy = (() => {
        try {
          waiter.exec('begin immediate')
        } catch (err) {
          return err
        }
      })()
      assert.equal((busy as { code?: string } | undefined)?.code, 'SQLITE_BUSY')
      assert.ok(isDatabaseUnavailable(busy))
    } finally {
      holder.close()
      waiter.close()
      rmSync(dirname(path), { recursive: true, force: true })
    }
  })

  it('is false for errors of the query or the data, and for things that are not errors', () => {
    assert.equal(isDatabaseUnavailable(withCode('duplicate key value violates unique constraint', '23505')), false)
    assert.equal(isDatabaseUnavailable(withCode('syntax error at or near "selec"', '42601')), false)
    assert.equal(isDatabaseUnavailable(withCode('deadlock detected', '40P01')), false)
    assert.equal(isDatabaseUnavailable(withCode('UNIQUE constraint failed: contacts.email', 'SQLITE_CONSTRAINT_UNIQUE')), false)
    assert.equal(isDatabaseUnavailable(new Error('no handler for job kind "x"')), false)
    assert.equal(isDatabaseUnavailable('ECONNREFUSED'), false)
    assert.equal(isDatabaseUnavailable(undefined), false)
  })

  it('is false for a socket error that did not come from the database: a client that reset its connection', async () => {
    const reset = await realConnectionReset()
    assert.equal((reset as { code?: string }).code, 'ECONNRESET')
    assert.equal(isDatabaseUnavailable(reset), false)
    assert.equal(isDatabaseUnavailable(new Error('request body aborted', { cause: reset })), false)
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), false, 'as node:http raises it for a body cut short')
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })), false)
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ETIMEDOUT' })), false)
  })

  it('is true for the error of a query through openDatabase when PostgreSQL is not there', async () => {
    const storage = openDatabase(`postgres://tidings@127.0.0.1:${await freePort()}/none`, { connectSeconds: 5, statementSeconds: 5 })
    try {
      const failure = await sql`select 1`.execute(storage.db).then(() => undefined, (err: unknown) => err)
      assert.ok(failure instanceof Error, 'the query fails')
      assert.ok(isDatabaseUnavailable(failure), String(failure))
    } finally {
      await storage.close()
    }
  })
})
