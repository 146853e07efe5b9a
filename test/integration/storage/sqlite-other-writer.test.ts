// SQLite is one serving process, but the CLI writes to the same file while it serves (`tidings import`,
// `tidings accounts credit`). A transaction that read before another process committed cannot write after it
// (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out): an API write that met one answered 500.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

/** How long the other process holds the write lock: under busy_timeout (5 s), so waiting for it is the right answer. */
const HOLD_MS = 1500

// Another process writes and commits while the API's request is between its read and its write.
const OTHER_WRITER = `
const Database = require('better-sqlite3')
const db = new Database(process.argv[1])
db.pragma('busy_timeout = 5000')
db.exec('begin immediate')
db.prepare("update accounts set name = name || '' where id = ?").run(Number(process.argv[2]))
console.log('locked')
setTimeout(() => { db.exec('commit'); db.close() }, ${HOLD_MS})
`

describe('SQLite written by another process while the API serves', () => {
  let t: TestApp
  let account: TestAccount
  before(async () => {
    t = await startTestApp('sqlite')
    account = await t.account()
  })
  after(() => t.close())

  it('waits for the other writer instead of failing a request that reads, then writes', async () => {
    const book = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Shared file' } })).json<{ id: number }>().id
    const path = t.database.url.slice('sqlite:'.length)
    const writer = spawn(process.execPath, ['-e', OTHER_WRITER, path, String(account.id)], { stdio: ['ignore', 'pipe', 'inherit'] })
    const [line] = await once(createInterface({ input: writer.stdout! }), 'line')
    assert.equal(line, 'locked')
    // The request starts reading now; the other process commits while it waits to write.
    const added = await t.call(account, {
      method: 'POST',
      url: `/addressbooks/${book}/emails`,
      payload: { emails: [{ email: 'first@example.com', variables: { name: 'First' } }, { email: 'second@example.com' }] },
    })
    const [code] = await once(writer, 'exit')
    assert.equal(code, 0)
    assert.equal(added.statusCode, 200, added.body)
    const listed = (await t.call(account, { method: 'GET', url: `/addressbooks/${book}/emails` })).json<{ email: string }[]>()
    assert.deepEqual(listed.map((c) => c.email).sort(), ['first@example.com', 'second@example.com'])
  })
})
