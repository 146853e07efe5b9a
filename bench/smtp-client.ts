// `npm run bench:smtp-client`: the SMTP client alone, the measurement behind docs/decisions/0004. The same
// BENCH_MESSAGES (50,000) campaign messages, built once by Tidings' MIME builder (about 7.3 KB each, as in
// bench:send), go to postfix's smtp-sink over BENCH_SESSIONS (10) connections through:
//
// - nodemailer: its pooled SMTP transport (`pool: true`, `maxMessages: Infinity`), each message as `raw` with
//   its envelope: what Tidings' SMTP channel did before;
// - tidings: Tidings' pooled, pipelined client (src/delivery/email/smtp-pool.ts), what it does now;
// - reference: postfix's smtp-source, same count, size and sessions, in its own process.
//
// The clients take turns, BENCH_ROUNDS (3) rounds, in this process; the sink runs in its own. Reported per
// client: messages/s (median of the rounds) and this process's CPU per message (user + system, all threads),
// which is the cost that competes with rendering and the database in a real campaign. Each round checks that
// the sink counted every message.
import nodemailer from 'nodemailer'
import { fmt, machine, positiveNumber, writeResults } from './lib/env.js'
import { runSmtpSource, startPostfixSink, type PostfixSink } from './lib/postfix.js'
import { freePort } from '../test/helpers/postgres.js'
import { buildMime, prepareMimeFrame, type MimeMessage } from '../src/delivery/email/mime.js'
import { SmtpPool } from '../src/delivery/email/smtp-pool.js'
import { poolOptionsOf } from '../src/delivery/email/smtp-settings.js'

const MESSAGES = positiveNumber('BENCH_MESSAGES', 50_000)
const SESSIONS = positiveNumber('BENCH_SESSIONS', 10)
const ROUNDS = positiveNumber('BENCH_ROUNDS', 3)
const FROM = 'bench@sender.example.com'

interface Round {
  seconds: number
  messagesPerSecond: number
  cpuMicrosecondsPerMessage: number
}

interface Used {
  seconds: number
  cpuSeconds: number
}

type Client = (port: number, messages: readonly MimeMessage[]) => Promise<Used>

const clients: Record<string, Client> = {
  async nodemailer(port, messages) {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, pool: true, maxConnections: SESSIONS, maxMessages: Infinity })
    // nodemailer's raw message is one string or Buffer: joined here, outside the timing.
    const raws = messages.map((m) => Buffer.concat([Buffer.from(m.head + '\r\n'), ...m.body]))
    const started = cpuAndClock()
    await Promise.all(raws.map((raw, i) => transport.sendMail({ raw, envelope: { from: FROM, to: `r${i}@sink.example.com` } })))
    const used = started()
    transport.close()
    return used
  },
  async tidings(port, messages) {
    const pool = new SmtpPool(poolOptionsOf(`smtp://127.0.0.1:${port}`, { maxConnections: SESSIONS }))
    const started = cpuAndClock()
    const results = await Promise.all(messages.map((m, i) => pool.send(FROM, `r${i}@sink.example.com`, m)))
    const used = started()
    const failed = results.filter((r) => !r.ok).length
    await pool.close()
    if (failed > 0) throw new Error(`${failed} messages failed`)
    return used
  },
}

function cpuAndClock(): () => Used {
  const clock = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  return () => {
    const used = process.cpuUsage(cpu)
    return { seconds: Number(process.hrtime.bigint() - clock) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function roundOf(name: string, sink: PostfixSink, messages: readonly MimeMessage[]): Promise<Round> {
  const before = sink.count()
  const { seconds, cpuSeconds } = await clients[name]!(sink.port, messages)
  // smtp-sink prints its counter after each message; give its last line a moment.
  for (let i = 0; i < 50 && sink.count() - before < messages.length; i++) await new Promise((r) => setTimeout(r, 20))
  const counted = sink.count() - before
  if (counted !== messages.length) throw new Error(`${name}: the sink counted ${counted} of ${messages.length} messages`)
  return { seconds, messagesPerSecond: messages.length / seconds, cpuMicrosecondsPerMessage: (cpuSeconds / messages.length) * 1e6 }
}

async function main(): Promise<void> {
  const frame = prepareMimeFrame({ email: FROM, name: 'Bench' }, [])
  const paragraph = 'Hello {{name}}, this is the weekly letter with news, offers and a few links. '.repeat(40)
  const messages = Array.from({ length: MESSAGES }, (_, i) =>
    buildMime(frame, { from: { email: FROM, name: 'Bench' }, to: `r${i}@sink.example.com`, subject: `Weekly letter ${i}`, text: paragraph, html: `<p>${paragraph}</p>` }, new Date()),
  )
  const size = Math.round(messages.reduce((sum, m) => sum + m.head.length + 2 + m.body.reduce((s, b) => s + b.length, 0), 0) / messages.length)
  console.log(`${fmt(MESSAGES, 0)} messages of ${fmt(size, 0)} bytes, ${SESSIONS} connections, ${ROUNDS} rounds; sink: postfix smtp-sink`)
  const sink = await startPostfixSink(await freePort())
  const rounds: Record<string, Round[]> = { nodemailer: [], tidings: [], 'smtp-source': [] }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(clients)) rounds[name]!.push(await roundOf(name, sink, messages))
      const source = await runSmtpSource({ port: sink.port, messages: MESSAGES, sessions: SESSIONS, sizeBytes: size })
      rounds['smtp-source']!.push({ seconds: source.seconds, messagesPerSecond: source.messagesPerSecond, cpuMicrosecondsPerMessage: NaN })
    }
  } finally {
    await sink.stop()
  }
  const reference = median(rounds['smtp-source']!.map((r) => r.messagesPerSecond))
  console.log('\n| client | msgs/s (median) | ÷ smtp-source | CPU µs a message (median) |\n|---|---:|---:|---:|')
  for (const [name, list] of Object.entries(rounds)) {
    const rate = median(list.map((r) => r.messagesPerSecond))
    const cpu = median(list.map((r) => r.cpuMicrosecondsPerMessage))
    console.log(`| ${name} | ${fmt(rate, 0)} | ${fmt(rate / reference, 2)} | ${Number.isNaN(cpu) ? '–' : fmt(cpu, 1)} |`)
  }
  const file = writeResults('smtp-client', { date: new Date().toISOString(), machine: machine(), messages: MESSAGES, messageBytes: size, sessions: SESSIONS, rounds })
  console.log(`\nresults written to ${file}`)
}

await main()
