// The SMPP channel against a real SMSC on loopback (test/helpers/smsc.ts, the smpp package's server): what
// arrives on the wire, the window, the SMSC's refusals, dropped connections and failed binds, and receipts.
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import smpp from 'smpp'
import { smppChannel, type SmppChannelOptions } from '../../../src/delivery/sms/smpp.js'
import type { DeliveryReceipt, OutboundSms, SmsChannel, SmsSendResult } from '../../../src/delivery/sms/channel.js'
import { startSmsc, type Smsc } from '../../helpers/smsc.js'

const log = pino({ level: 'silent' })
const FAST = { reconnectMs: { first: 50, max: 200 }, slowDownMs: { first: 100, max: 200 } }

let cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups = []
})

async function setup(options: Partial<SmppChannelOptions> = {}, smscOptions: Parameters<typeof startSmsc>[0] = {}) {
  const smsc = await startSmsc(smscOptions)
  const channel = smppChannel({ url: smsc.url, log, ...FAST, ...options })
  cleanups.push(() => smsc.close(), () => channel.close())
  return { smsc, channel }
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Sends until the channel is bound (the first sends may fail while it binds again). */
async function sendWhenBound(channel: SmsChannel, batch: OutboundSms[]): Promise<SmsSendResult[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const results = await channel.send(batch)
    if (!results.some((r) => !r.ok && /not bound|dropped/.test(r.reason))) return results
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the channel did not bind again')
}

const sms = (to: string, text: string, from = 'Tidings'): OutboundSms => ({ from, to, text })
const ids = (result: SmsSendResult | undefined) => (result?.ok ? result.providerIds : assert.fail(`not sent: ${JSON.stringify(result)}`))

describe('SMPP channel', () => {
  it('sends short and long GSM-7 and UCS-2 texts with the right data_coding, UDH and bytes', async () => {
    const { smsc, channel } = await setup()
    const longGsm = `${'Long text with {braces} and 5€. '.repeat(12)}end`
    const longUcs2 = `${'Привіт, світе! '.repeat(10)}😜 кінець`
    const texts = ['Hello [world] 5€', longGsm, 'Привіт 😜', longUcs2]
    const destinations = ['380501234567', '380501234568', '380501234569', '380501234570']
    const results = await channel.send(texts.map((text, i) => sms(destinations[i]!, text, i === 1 ? '12025550100' : 'Tidings')))

    assert.deepEqual(results.map((r) => r.ok && r.providerIds.length), [1, 3, 1, 3])
    const messages = smsc.messages()
    assert.deepEqual(messages.map((m) => [m.destination, m.text]), texts.map((text, i) => [destinations[i], text]))
    assert.deepEqual(results.map(ids), messages.map((m) => m.parts.map((p) => p.messageId)), 'one SMSC id per part, in order')
    assert.ok(smsc.submits.every((s) => s.registeredDelivery === 1 && s.destinationTon === 1))

    const [single] = messages[0]!.parts
    assert.deepEqual([single!.dataCoding, single!.esmClass], [0, 0])
    assert.deepEqual(single!.shortMessage, smpp.gsmCoder.encode(texts[0]!), 'GSM-7 unpacked, as the package encodes it')
    assert.deepEqual([single!.source, single!.sourceTon, single!.sourceNpi], ['Tidings', 5, 0], 'an alphanumeric sender')

    const gsmParts = messages[1]!.parts
    assert.deepEqual([gsmParts[0]!.source, gsmParts[0]!.sourceTon, gsmParts[0]!.sourceNpi], ['12025550100', 1, 1], 'a numeric sender is international')
    const reference = gsmParts[0]!.udh!.reference
    for (const [i, part] of gsmParts.entries()) {
      assert.deepEqual([part.esmClass, part.dataCoding], [0x40, 0])
      assert.deepEqual(part.udh, { reference, total: 3, seq: i + 1 })
      assert.deepEqual(part.shortMessage.subarray(0, 6), Buffer.from([5, 0, 3, reference, 3, i + 1]))
    }
    assert.ok(gsmParts.slice(0, 2).every((p) => p.shortMessage.length === 6 + 153 || p.shortMessage.length === 6 + 152), 'full parts of 153 septets (152 when a € would straddle)')
    assert.ok(smsc.submits.indexOf(gsmParts[0]!) < smsc.submits.indexOf(gsmParts[1]!) && smsc.submits.indexOf(gsmParts[1]!) < smsc.submits.indexOf(gsmParts[2]!), 'parts in order')

    const [ucs2Single] = messages[2]!.parts
    assert.deepEqual([ucs2Single!.dataCoding, ucs2Single!.esmClass], [8, 0])
    assert.deepEqual(ucs2Single!.shortMessage, Buffer.from(texts[2]!, 'utf16le').swap16(), 'UCS-2 big endian')
    const ucs2Parts = messages[3]!.parts
    assert.ok(ucs2Parts.every((p) => p.dataCoding === 8 && p.esmClass === 0x40 && p.udh?.total === 3))
    assert.notEqual(ucs2Parts[0]!.udh!.reference, reference, 'one reference per message')
    assert.equal(ucs2Parts[0]!.shortMessage.length, 6 + 134)
  })

  it('packs GSM-7 septets when the SMSC expects them packed', async () => {
    const { smsc, channel } = await setup({ gsm7Packing: 'packed' }, { gsm7Packing: 'packed' })
    const text = `${'Packed septets, {8} in 7 octets. '.repeat(6)}1234567`
    const results = await channel.send([sms('447700900123', 'hellohello'), sms('447700900124', text)])
    assert.ok(results.every((r) => r.ok))
    assert.equal(smsc.submits[0]!.shortMessage.toString('hex').toUpperCase(), 'E8329BFD4697D9EC37')
    assert.deepEqual(smsc.messages().map((m) => m.text), ['hellohello', text])
    assert.equal(smsc.submits[1]!.shortMessage.length, 6 + 134, 'a full part: 153 septets in the 134 octets after the UDH')
  })

  it('keeps at most `window` submits waiting for their answer', async () => {
    const { smsc, channel } = await setup({ window: 4 })
    smsc.respondDelayMs = 15
    const results = await channel.send(Array.from({ length: 30 }, (_, i) => sms(`4477009${String(i).padStart(5, '0')}`, `message ${i}`)))
    assert.ok(results.every((r) => r.ok))
    assert.equal(smsc.maxOutstanding, 4)
  })

  it('makes throttled and queue-full submits retryable, pauses, then sends again', async () => {
    const { smsc, channel } = await setup({ window: 1 })
    smsc.throttleNext = 2
    smsc.reject = (to) => (to === '447700900999' ? smpp.errors.ESME_RMSGQFUL : undefined)
    const first = await channel.send([sms('447700900001', 'one'), sms('447700900002', 'two'), sms('447700900003', 'three'), sms('447700900999', 'full')])
    assert.deepEqual(first.slice(0, 2), [
      { ok: false, retryable: true, code: 0x58, reason: 'ESME_RTHROTTLED (0x58) throttling error (ESME has exceeded allowed message limits)' },
      { ok: false, retryable: true, code: 0x58, reason: 'ESME_RTHROTTLED (0x58) throttling error (ESME has exceeded allowed message limits)' },
    ])
    assert.equal(first[2]!.ok, true)
    assert.deepEqual(first[3], { ok: false, retryable: true, code: 0x14, reason: 'ESME_RMSGQFUL (0x14) message queue full' })
    const again = await channel.send([sms('447700900001', 'one'), sms('447700900002', 'two')])
    assert.ok(again.every((r) => r.ok), 'sent once the SMSC takes them again')
    assert.deepEqual(smsc.messages().map((m) => m.text), ['three', 'one', 'two'])
  })

  it('sends again after every pause, however close to its end the timer fires', { timeout: 10_000 }, async () => {
    // 500 pauses of 1 ms: a timer fires up to 1 ms before performance.now() reaches its due time; a pause that
    // waited for both left the second message waiting for good (most runs hung within 200 pauses).
    const { smsc, channel } = await setup({ window: 1, slowDownMs: { first: 1, max: 1 } }, { record: false })
    smsc.receipts = 'none'
    for (let pause = 0; pause < 500; pause++) {
      smsc.throttleNext = 1
      const [throttled, sent] = await channel.send([sms('447700900001', 'one'), sms('447700900002', 'two')])
      assert.equal(throttled?.ok, false)
      assert.equal(sent?.ok, true, `after pause ${pause}: ${JSON.stringify(sent)}`)
    }
  })

  it('refuses a message for good with the status the SMSC named; the rest of the batch goes', async () => {
    const { smsc, channel } = await setup()
    smsc.reject = (to) => (to === '10000000000' ? smpp.errors.ESME_RINVDSTADR : to === '10000000001' ? 0x0401 : undefined)
    const results = await channel.send([sms('447700900001', 'ok'), sms('10000000000', 'bad'), sms('10000000001', 'vendor'), sms('447700900002', 'ok too')])
    assert.deepEqual(results[1], { ok: false, retryable: false, code: 0x0b, reason: 'ESME_RINVDSTADR (0x0b) invalid destination address' })
    assert.deepEqual(results[2], { ok: false, retryable: false, code: 0x0401, reason: 'SMPP status 0x401 (SMSC vendor specific)' })
    assert.ok(results[0]!.ok && results[3]!.ok)
  })

  it('binds again when the SMSC says the connection is not bound', async () => {
    const { smsc, channel } = await setup()
    smsc.reject = () => smpp.errors.ESME_RINVBNDSTS
    const [result] = await channel.send([sms('447700900001', 'hi')])
    assert.deepEqual(result, { ok: false, retryable: true, code: 0x04, reason: 'ESME_RINVBNDSTS (0x04) incorrect BIND status for given command' })
    smsc.reject = () => undefined
    assert.ok((await sendWhenBound(channel, [sms('447700900001', 'hi')]))[0]!.ok)
    assert.equal(smsc.binds.length, 2)
  })

  it('refuses a long text whose later part is refused, without sending the parts after it', async () => {
    const { smsc, channel } = await setup()
    let submits = 0
    smsc.reject = () => (++submits === 2 ? smpp.errors.ESME_RSUBMITFAIL : undefined)
    const [result] = await channel.send([sms('447700900001', 'x'.repeat(500))])
    assert.deepEqual(result, { ok: false, retryable: false, code: 0x45, reason: 'ESME_RSUBMITFAIL (0x45) submit_sm or submit_multi failed' })
    assert.equal(smsc.submitCount, 2, 'parts 3 and 4 were not sent')
  })

  it('refuses what no SMSC could send without asking one', async () => {
    const { smsc, channel } = await setup()
    const results = await channel.send([sms('not-a-number', 'hi'), sms('447700900001', 'hi', 'Far too long a sender'), sms('447700900001', 'x'.repeat(153 * 256))])
    assert.ok(results.every((r) => !r.ok && !r.retryable))
    assert.match((results[0] as { reason: string }).reason, /destination "not-a-number"/)
    assert.match((results[1] as { reason: string }).reason, /sender ID/)
    assert.match((results[2] as { reason: string }).reason, /256 parts/)
    assert.equal(smsc.submitCount, 0)
  })

  it('makes the submits outstanding when the connection drops retryable, binds again and sends the next batch', async () => {
    const { smsc, channel } = await setup()
    smsc.respondDelayMs = 50
    smsc.dropAfter = 5
    const batch = Array.from({ length: 10 }, (_, i) => sms(`4477009000${String(i).padStart(2, '0')}`, `message ${i}`))
    const results = await channel.send(batch)
    for (const result of results) assert.deepEqual(result, { ok: false, retryable: true, reason: 'the SMSC connection dropped' })
    smsc.respondDelayMs = 0
    const next = await sendWhenBound(channel, batch)
    assert.ok(next.every((r) => r.ok))
    assert.equal(smsc.binds.filter((b) => b.ok).length, 2)
  })

  it('answers retryable while the bind is refused, tries again with growing pauses, and sends once it succeeds', async () => {
    const smsc = await startSmsc()
    cleanups.push(() => smsc.close())
    smsc.password = 'changed'
    const channel = smppChannel({ url: smsc.url, log, ...FAST })
    cleanups.push(() => channel.close())
    await waitFor('four refused binds', () => smsc.binds.length >= 4)
    const [result] = await channel.send([sms('447700900001', 'hi')])
    assert.equal(result!.ok, false)
    assert.equal((result as { retryable: boolean }).retryable, true)
    assert.match((result as { reason: string }).reason, /bind refused: ESME_RBINDFAIL \(0x0d\) bind failed/)
    const gaps = smsc.binds.slice(1, 4).map((bind, i) => bind.at - smsc.binds[i]!.at)
    // 50 ms, then 100, then 200 (the maximum); a timer may fire a millisecond early.
    assert.ok(gaps[0]! >= 45 && gaps[1]! >= 95 && gaps[2]! >= 195, `pauses between binds: ${gaps.join(', ')} ms`)
    assert.equal(smsc.submitCount, 0)

    smsc.password = 'secret'
    const [sent] = await sendWhenBound(channel, [sms('447700900001', 'hi')])
    assert.equal(sent!.ok, true)
  })

  it('answers retryable while the SMSC is stopped, and sends again once it is back on the same port', async () => {
    const { smsc, channel } = await setup()
    assert.ok((await channel.send([sms('447700900001', 'before')]))[0]!.ok)
    const port = smsc.port
    await smsc.stop()
    const [during] = await channel.send([sms('447700900001', 'during')])
    assert.deepEqual([during!.ok, !during!.ok && during!.retryable], [false, true])
    await smsc.start()
    assert.equal(smsc.port, port)
    assert.ok((await sendWhenBound(channel, [sms('447700900001', 'after')]))[0]!.ok)
    assert.deepEqual(smsc.messages().map((m) => m.text), ['before', 'after'])
  })

  it('keeps the bind alive with enquire_link, and binds again when the SMSC stops answering them', async () => {
    const { smsc, channel } = await setup({ enquireLinkSeconds: 0.05, responseTimeoutMs: 200 })
    assert.ok((await channel.send([sms('447700900001', 'hi')]))[0]!.ok)
    await waitFor('three keep-alives', () => smsc.enquireLinks >= 3)
    assert.equal(smsc.binds.length, 1, 'answered keep-alives keep the bind')
    smsc.answerEnquireLink = false
    await waitFor('a new bind', () => smsc.binds.length === 2)
    smsc.answerEnquireLink = true
    assert.ok((await sendWhenBound(channel, [sms('447700900001', 'hi')]))[0]!.ok)
  })

  it('answers retryable when the SMSC does not answer a submit in time', async () => {
    const { smsc, channel } = await setup({ responseTimeoutMs: 300 })
    smsc.respondDelayMs = 2000
    const [result] = await channel.send([sms('447700900001', 'hi')])
    assert.deepEqual(result, { ok: false, retryable: true, reason: 'no submit_sm_resp within 0.3 s' })
  })

  it('answers retryable after close, and closes with an unbind', async () => {
    const { smsc, channel } = await setup()
    assert.ok((await channel.send([sms('447700900001', 'hi')]))[0]!.ok)
    await channel.close()
    const [result] = await channel.send([sms('447700900001', 'hi')])
    assert.deepEqual(result, { ok: false, retryable: true, reason: 'the SMSC channel is closed' })
    await waitFor('the SMSC to see the connection closed', () => smsc.binds.length === 1 && smsc.submitCount === 1)
  })
})

describe('SMPP delivery receipts', () => {
  function collect(channel: SmsChannel): DeliveryReceipt[] {
    const received: DeliveryReceipt[] = []
    channel.onReceipt(async (receipts) => {
      received.push(...receipts)
    })
    return received
  }

  it('reach the handler whether they come after the submit_sm_resp or before it', async () => {
    const { smsc, channel } = await setup()
    const received = collect(channel)
    smsc.receiptStat = (to) => (to === '447700900002' ? 'UNDELIV' : 'DELIVRD')
    const after = await channel.send([sms('447700900001', 'x'.repeat(200)), sms('447700900002', 'hi')])
    smsc.receipts = 'before'
    const before = await channel.send([sms('447700900003', 'race')])
    const all = [...after, ...before].flatMap(ids)
    await waitFor('every receipt', () => received.length === all.length)
    assert.deepEqual(received.map((r) => r.providerId).sort(), [...all].sort())
    const byId = new Map(received.map((r) => [r.providerId, r]))
    const undelivered = byId.get(ids(after[1])[0]!)!
    assert.deepEqual([undelivered.state, undelivered.final, undelivered.error], ['undeliverable', true, '001'])
    assert.deepEqual([byId.get(ids(before[0])[0]!)!.state, byId.get(ids(before[0])[0]!)!.final], ['delivered', true])
    assert.ok(smsc.receiptAnswers.every((a) => a.status === 0))
  })

  it('take the message id and state from the TLVs when the SMSC sends them', async () => {
    const { smsc, channel } = await setup()
    const received = collect(channel)
    smsc.receiptTlvs = true
    smsc.receiptStat = () => 'REJECTD'
    const [result] = await channel.send([sms('447700900001', 'hi')])
    await waitFor('the receipt', () => received.length === 1)
    assert.deepEqual([received[0]!.providerId, received[0]!.state], [ids(result)[0], 'rejected'])
    // An SMSC that writes the id in decimal in the text and as given in the TLV: the TLV wins.
    const status = await smsc.deliver({ esm_class: 0x04, short_message: 'id:4711 stat:DELIVRD err:000', receipted_message_id: '1267', message_state: 2 })
    assert.equal(status, 0)
    await waitFor('the second receipt', () => received.length === 2)
    assert.deepEqual([received[1]!.providerId, received[1]!.state], ['1267', 'delivered'])
    // The text in message_payload, short_message empty (SMPP 3.4 §5.3.2.32).
    assert.equal(await smsc.deliver({ esm_class: 0x04, message_payload: 'id:89AB stat:EXPIRED err:003' }), 0)
    await waitFor('the third receipt', () => received.length === 3)
    assert.deepEqual([received[2]!.providerId, received[2]!.state, received[2]!.error], ['89AB', 'expired', '003'])
  })

  it('are refused with ESME_RX_T_APPN while the handler fails, so the SMSC sends them again', async () => {
    const { smsc, channel } = await setup()
    const calls: string[][] = []
    let failures = 1
    channel.onReceipt(async (receipts) => {
      calls.push(receipts.map((r) => r.providerId))
      if (failures-- > 0) throw new Error('database unavailable')
    })
    const [result] = await channel.send([sms('447700900001', 'hi')])
    const [id] = ids(result)
    await waitFor('the receipt accepted', () => smsc.receiptAnswers.some((a) => a.status === 0))
    assert.deepEqual(smsc.receiptAnswers, [
      { messageId: id, status: smpp.errors.ESME_RX_T_APPN },
      { messageId: id, status: 0 },
    ])
    assert.deepEqual(calls, [[id], [id]])
  })

  it('are refused while no handler is set, and come again once one is', async () => {
    const { smsc, channel } = await setup()
    const [result] = await channel.send([sms('447700900001', 'hi')])
    await waitFor('a refused receipt', () => smsc.receiptAnswers.length >= 1)
    assert.equal(smsc.receiptAnswers[0]!.status, smpp.errors.ESME_RX_T_APPN)
    const received = collect(channel)
    await waitFor('the receipt', () => received.length === 1)
    assert.equal(received[0]!.providerId, ids(result)[0])
  })

  it('come again after the connection dropped before they were acknowledged', async () => {
    const { smsc, channel } = await setup()
    const received: DeliveryReceipt[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    channel.onReceipt(async (receipts) => {
      received.push(...receipts)
      if (received.length === 1) await held
    })
    const [id] = ids((await channel.send([sms('447700900001', 'hi')]))[0])
    await waitFor('the receipt in the handler', () => received.length === 1)
    smsc.disconnect()
    release()
    await waitFor('the receipt sent again and acknowledged', () => smsc.receiptAnswers.some((a) => a.status === 0))
    assert.deepEqual(received.map((r) => r.providerId), [id, id])
    assert.deepEqual(smsc.receiptAnswers, [{ messageId: id, status: 0 }], 'the first copy was never acknowledged')
  })

  it('are told apart from mobile-originated messages, which are accepted and ignored', async () => {
    const { smsc, channel } = await setup()
    const received = collect(channel)
    await channel.send([sms('447700900001', 'hi')])
    await waitFor('the receipt', () => received.length === 1)
    const status = await smsc.deliver({ source_addr: '447700900001', destination_addr: 'Tidings', esm_class: 0, short_message: 'STOP id:1 stat:DELIVRD' })
    assert.equal(status, 0)
    const unreadable = await smsc.deliver({ esm_class: 0x04, short_message: 'delivered, no id' })
    assert.equal(unreadable, 0, 'an unreadable receipt is acknowledged, or the SMSC would send it forever')
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(received.length, 1)
  })
})
