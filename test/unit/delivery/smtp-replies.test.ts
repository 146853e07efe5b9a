// What a relay's replies can make the SMTP client do: replies split anywhere are put back together, and a
// relay that never ends its reply (a hostile or broken server) costs at most 64 KiB before the connection is
// dropped, instead of growing the process's memory without bound.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ReplyReader, SmtpError, type Reply } from '../../../src/delivery/email/smtp-replies.js'

describe('SMTP replies as they come off a connection', () => {
  it('puts a multi-line reply split across chunks back together', () => {
    const replies: Reply[] = []
    const reader = new ReplyReader((reply) => replies.push(reply))
    reader.push('250-mx.example.org\r\n250-PIPE')
    reader.push('LINING\r\n250 SMTPUTF8\r\n354 go')
    assert.equal(replies.length, 1)
    assert.deepEqual(replies[0]!.lines, ['mx.example.org', 'PIPELINING', 'SMTPUTF8'])
    reader.push(' ahead\r\n')
    assert.equal(replies[1]!.code, 354)
  })

  it('drops a connection whose reply never ends, once it passes 64 KiB', () => {
    const reader = new ReplyReader(() => assert.fail('no reply expected'))
    const line = `250-${'x'.repeat(1000)}\r\n`
    let thrown: unknown
    let pushed = 0
    try {
      for (; pushed < 1000; pushed++) reader.push(line)
    } catch (err) {
      thrown = err
    }
    assert.ok(thrown instanceof SmtpError && thrown.code === 'EPROTOCOL', `expected EPROTOCOL, got ${String(thrown)}`)
    assert.ok(pushed * line.length <= 66 * 1024, `read ${pushed * line.length} bytes before giving up`)
  })

  it('does the same for a single line without an end', () => {
    const reader = new ReplyReader(() => assert.fail('no reply expected'))
    assert.throws(() => {
      for (let i = 0; i < 100; i++) reader.push('2'.repeat(1024))
    }, (err: unknown) => err instanceof SmtpError && err.code === 'EPROTOCOL')
  })
})
