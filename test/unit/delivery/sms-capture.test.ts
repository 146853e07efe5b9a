// The capture SMS channel (the default): nothing leaves, ids per part, simulated receipts through the same
// handler path as an SMSC's; and which channel the settings choose.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { captureSmsChannel } from '../../../src/delivery/sms/capture.js'
import type { DeliveryReceipt } from '../../../src/delivery/sms/channel.js'
import { smsChannel } from '../../../src/delivery/sms/registry.js'

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.ok(condition(), 'timed out')
}

describe('capture SMS channel', () => {
  it('gives each part an id and a delivered receipt a moment later', async () => {
    const channel = captureSmsChannel({ receiptDelayMs: 20, now: () => 42 })
    const received: DeliveryReceipt[] = []
    channel.onReceipt(async (receipts) => void received.push(...receipts))
    const results = await channel.send([{ from: 'Tidings', to: '380501234567', text: 'hi' }, { from: 'Tidings', to: '380501234568', text: 'ж'.repeat(71) }])
    assert.equal(channel.name, 'capture')
    assert.deepEqual(results.map((r) => r.ok && r.captured && r.providerIds.length), [1, 2])
    const all = results.flatMap((r) => (r.ok ? r.providerIds : []))
    assert.ok(all.every((id) => /^capture-[0-9a-f-]{36}$/.test(id)))
    await until(() => received.length === 3)
    assert.deepEqual(received.map((r) => r.providerId).sort(), [...all].sort())
    assert.ok(received.every((r) => r.state === 'delivered' && r.final && r.at === 42))
    await channel.close()
  })

  it('gives a receipt again when the handler failed, and none after close', async () => {
    const channel = captureSmsChannel({ receiptDelayMs: 10 })
    let calls = 0
    channel.onReceipt(async () => {
      if (++calls === 1) throw new Error('not stored')
    })
    await channel.send([{ from: 'Tidings', to: '380501234567', text: 'hi' }])
    await until(() => calls === 2)
    await channel.send([{ from: 'Tidings', to: '380501234567', text: 'hi' }])
    await channel.close()
    await new Promise((resolve) => setTimeout(resolve, 40))
    assert.equal(calls, 2, 'the pending receipt was cancelled')
  })
})

describe('SMS channel choice', () => {
  const settings = { smppWindow: 10, smppEnquireLinkSeconds: 30, smppGsm7Packing: 'unpacked' as const }
  it('is capture without an SMSC URL, SMPP with one', async () => {
    const capture = smsChannel({ ...settings, smppUrl: '' }, pino({ level: 'silent' }))
    assert.equal(capture.name, 'capture')
    const smpp = smsChannel({ ...settings, smppUrl: 'smpp://tidings:secret@127.0.0.1:9' }, pino({ level: 'silent' }))
    assert.equal(smpp.name, 'smpp')
    await Promise.all([capture.close(), smpp.close()])
  })
})
