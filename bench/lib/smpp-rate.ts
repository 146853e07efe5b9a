// How many submit_sm a second reach the test SMSC (in its own process, acknowledging each and sending a receipt
// for each) on loopback: the `smpp` package alone (bind, then submit as fast as the window allows, receipts
// answered at once), and the SMPP channel (one send() of every message, receipts to a handler that returns at
// once). The reference for issue 17's SMS benchmark. Run: npx tsx bench/lib/smpp-rate.ts
// (BENCH_SMPP_MESSAGES per run, default 50000; BENCH_SMPP_WINDOWS, default 10,100).
import { pino } from 'pino'
import smpp from 'smpp'
import { smppChannel } from '../../src/delivery/sms/smpp.js'
import { smppTargetOf } from '../../src/delivery/sms/smpp-link.js'
import { fmt, positiveNumber } from './env.js'
import { startSmscProcess } from './smsc-child.js'

const TEXT = 'Your code is 123456. Valid for 10 minutes.'
const destination = (i: number) => `4477${String(i).padStart(8, '0')}`

/** The package alone: `window` submit_sm in flight, each answer sending the next. Submits a second. */
export async function packageSubmitRate(url: string, window: number, count: number): Promise<number> {
  const target = smppTargetOf(url)
  const session = smpp.connect({ host: target.host, port: target.port })
  session.on('deliver_sm', (pdu: smpp.PDU) => session.send(pdu.response()))
  await new Promise<void>((resolve, reject) => {
    session.on('error', reject)
    session.on('connect', () =>
      session.bind_transceiver({ system_id: target.systemId, password: target.password }, (pdu) => (pdu.command_status === 0 ? resolve() : reject(new Error('bind refused')))),
    )
  })
  const started = performance.now()
  await new Promise<void>((resolve) => {
    let sent = 0
    let answered = 0
    const submit = () => {
      const i = sent++
      session.submit_sm({ source_addr: 'Bench', destination_addr: destination(i), registered_delivery: 1, data_coding: 0, short_message: smpp.gsmCoder.encode(TEXT) }, () => {
        if (++answered === count) resolve()
        else if (sent < count) submit()
      })
    }
    while (sent < Math.min(window, count)) submit()
  })
  const seconds = (performance.now() - started) / 1000
  await new Promise<void>((resolve) => session.unbind({}, () => session.close(() => resolve())))
  return count / seconds
}

/** The SMPP channel: one send() of `count` messages. Submits a second, and receipts handled by the end. */
export async function channelSubmitRate(url: string, window: number, count: number): Promise<{ rate: number; receipts: number }> {
  const channel = smppChannel({ url, window, log: pino({ level: 'warn' }) })
  let receipts = 0
  channel.onReceipt(async (batch) => void (receipts += batch.length))
  for (let attempt = 0; !(await channel.send([{ from: 'Bench', to: destination(0), text: TEXT }]))[0]!.ok; attempt++) {
    if (attempt > 100) throw new Error('the channel does not bind')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const batch = Array.from({ length: count }, (_, i) => ({ from: 'Bench', to: destination(i), text: TEXT }))
  const started = performance.now()
  const results = await channel.send(batch)
  const seconds = (performance.now() - started) / 1000
  if (results.some((r) => !r.ok)) throw new Error(`${results.filter((r) => !r.ok).length} messages failed`)
  const handled = receipts
  await channel.close()
  return { rate: count / seconds, receipts: handled }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = positiveNumber('BENCH_SMPP_MESSAGES', 50_000)
  const windows = (process.env.BENCH_SMPP_WINDOWS ?? '10,100').split(',').map(Number)
  const smsc = await startSmscProcess()
  try {
    for (const window of windows) {
      const reference = await packageSubmitRate(smsc.url, window, count)
      const channel = await channelSubmitRate(smsc.url, window, count)
      console.log(
        `window ${window}: smpp package ${fmt(reference, 0)} submit_sm/s; channel ${fmt(channel.rate, 0)} messages/s ` +
          `(${fmt(channel.rate / reference, 2)} of the package; ${fmt(channel.receipts, 0)} of ${fmt(count, 0)} receipts handled when send() returned)`,
      )
    }
  } finally {
    await smsc.stop()
  }
}
