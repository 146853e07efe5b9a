// The capture Viber channel (the default): nothing leaves, a provider id per message, a simulated `delivered`
// report through the report handler (again when the handler failed); and which channel the settings choose.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { captureViberChannel } from '../../../src/delivery/viber/capture.js'
import type { OutboundViber, ViberReport } from '../../../src/delivery/viber/channel.js'
import { viberChannel } from '../../../src/delivery/viber/registry.js'

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.ok(condition(), 'timed out')
}
const message = (messageId: number): OutboundViber => ({ messageId, to: '380501234567', from: 'Tidings', category: 'promotion', text: 'hi', imageUrl: null, button: null, ttlSeconds: 3600 })

describe('capture Viber channel', () => {
  it('gives each message an id and a delivered report a moment later', async () => {
    const channel = captureViberChannel({ reportDelayMs: 20, now: () => 42 })
    const received: ViberReport[] = []
    channel.onReport(async (reports) => void received.push(...reports))
    const results = await channel.send([message(1), message(2)])
    assert.equal(channel.name, 'capture')
    const ids = results.map((r) => (r.ok && r.captured ? r.providerId : assert.fail('not captured')))
    assert.ok(ids.every((id) => /^capture-[0-9a-f-]{36}$/.test(id)))
    await until(() => received.length === 2)
    assert.deepEqual(
      received.sort((a, b) => a.messageId - b.messageId),
      [{ messageId: 1, providerId: ids[0], state: 'delivered', at: 42 }, { messageId: 2, providerId: ids[1], state: 'delivered', at: 42 }],
    )
    await channel.close()
  })

  it('gives a report again when the handler failed, and none after close', async () => {
    const channel = captureViberChannel({ reportDelayMs: 10 })
    const calls: ViberReport[][] = []
    channel.onReport(async (reports) => {
      calls.push(reports)
      if (calls.length === 1) throw new Error('not stored')
    })
    await channel.send([message(7)])
    await until(() => calls.length === 2)
    assert.deepEqual(calls[1]!.map((r) => r.messageId), [7])
    await channel.send([message(8)])
    await channel.close()
    await new Promise((resolve) => setTimeout(resolve, 40))
    assert.equal(calls.length, 2, 'the pending report was cancelled')
  })
})

describe('Viber channel choice', () => {
  const settings = { viberToken: 'key:secret', viberApplicationId: '', viberPrivateKey: '', viberConcurrency: 4, viberTimeoutSeconds: 10 }
  it('is capture without a provider URL, Vonage with one', async () => {
    const log = pino({ level: 'silent' })
    const capture = viberChannel({ ...settings, viberUrl: '' }, log, 'http://127.0.0.1/viber/callbacks/vonage')
    const vonage = viberChannel({ ...settings, viberUrl: 'http://127.0.0.1:9/v1/messages' }, log, 'http://127.0.0.1/viber/callbacks/vonage')
    assert.deepEqual([capture.name, vonage.name], ['capture', 'vonage'])
    await Promise.all([capture.close(), vonage.close()])
  })
})
