// Two `tidings worker` processes on one PostgreSQL share TIDINGS_EMAIL_RATE (issue 20, item 3): a campaign to an
// SMTP sink goes at 50/s ± 10 % with both sending, not 100/s (each worker's own 50/s before). The first 3 s are
// left out: the shared bucket starts full (one second's worth), and while the workers warm up (their first batches
// take longer) part of that burst is sent later, which made a window from 1.5 s measure up to 61/s. SQLite has one
// process: nothing to show here (test/integration/dispatcher/account-send-rates.test.ts runs the same buckets on both databases).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, createCampaign, type CampaignSetup } from '../../helpers/campaigns.js'
import { toWireDate } from '../../../src/lib/wire-date.js'
import { CLI } from '../../helpers/cli.js'

const RATE = 50
/** Enough that neither 50/s nor 100/s runs out within the measurement. */
const RECIPIENTS = 1200
const SKIP_MS = 3000
const WINDOW_MS = 4000

interface Worker {
  process: ChildProcess
  messages: string[]
  exited: Promise<number | null>
}

function startWorker(databaseUrl: string, smtpUrl: string): Worker {
  const child = spawn(process.execPath, [...CLI, 'worker'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', TIDINGS_SMTP_URL: smtpUrl, TIDINGS_EMAIL_RATE: String(RATE) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const messages: string[] = []
  createInterface({ input: child.stdout! }).on('line', (text) => messages.push(String((JSON.parse(text) as { msg?: unknown }).msg)))
  return { process: child, messages, exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) }
}

/** Polls every 50 ms until `done` holds, for 20 s at most (the assertions after it say what was missing). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await sleep(50)
}

describe('the email rate with two workers on postgres', () => {
  let t: TestApp
  let sink: SmtpSink
  let setup: CampaignSetup
  let workers: Worker[] = []

  before(async () => {
    t = await startTestApp('postgres', { emailPrice: 0 })
    sink = await startSmtpSink()
    setup = await campaignSetup(t, RECIPIENTS)
    workers = [startWorker(t.database.url, sink.url), startWorker(t.database.url, sink.url)]
  })
  after(async () => {
    for (const w of workers) w.process.kill('SIGTERM')
    await Promise.all(workers.map((w) => w.exited))
    await sink?.close()
    await t.close()
  })

  it(`sends ${RATE}/s with both workers together`, async (test) => {
    await waitFor(() => workers.every((w) => w.messages.includes('tidings worker is running')))
    assert.ok(workers.every((w) => w.messages.includes('tidings worker is running')), 'both workers run')
    // Due a second or two from now, when both workers poll.
    const created = await createCampaign(t, setup, { send_date: toWireDate(Math.ceil((Date.now() + 1000) / 1000) * 1000) })
    assert.equal(created.statusCode, 200, created.body)
    // Measured by the time each message's relay answered (messages.sent_at, the workers' clock: this host's), not by
    // the sink, which also gets the sender's activation email and parses a message before it counts it.
    const sentTimes = async () => (await t.deps.db.selectFrom('messages').select('sent_at').where('sent_at', 'is not', null).execute()).map((m) => Number(m.sent_at))
    for (let i = 0; i < 200 && (await sentTimes()).length === 0; i++) await sleep(50)
    await sleep(SKIP_MS + WINDOW_MS + 1000)
    const sentAt = await sentTimes()
    const from = Math.min(...sentAt) + SKIP_MS
    const inWindow = sentAt.filter((at) => at >= from && at < from + WINDOW_MS).length
    const rate = (inWindow * 1000) / WINDOW_MS
    test.diagnostic(`${inWindow} messages in ${WINDOW_MS / 1000} s: ${rate.toFixed(1)}/s (${sentAt.length} sent in all)`)
    assert.ok(sentAt.length < RECIPIENTS, 'the campaign was still sending at the end of the window')
    assert.ok(Math.abs(rate - RATE) <= RATE * 0.1, `${rate.toFixed(1)}/s with two workers at TIDINGS_EMAIL_RATE=${RATE}`)
    const recipients = sink.received.flatMap((r) => r.envelopeTo)
    assert.equal(new Set(recipients).size, recipients.length, 'each recipient once')
  })

  it('stops both workers cleanly on SIGTERM while they send', async () => {
    for (const w of workers) w.process.kill('SIGTERM')
    assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0])
  })
})
