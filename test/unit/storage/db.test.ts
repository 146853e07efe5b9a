// Which database errors mean "PostgreSQL cannot answer now" (the API answers 503, the dispatcher pauses) and
// which mean the query itself failed. The errors are shaped as pg and node:net raise them.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isDatabaseUnavailable } from '../../../src/storage/db.js'

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code })

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
    assert.ok(isDatabaseUnavailable(new Error('Query read timeout')))
    assert.ok(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout')))
    assert.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')))
    assert.ok(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')))
  })

  it('looks into causes and into the attempts of an AggregateError (IPv4 and IPv6)', () => {
    assert.ok(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED') })))
    assert.ok(isDatabaseUnavailable(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], '')))
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
})
