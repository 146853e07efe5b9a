// Two `tidings worker` processes on one PostgreSQL share TIDINGS_EMAIL_RATE (issue 20, item 3): a campaign to an
// SMTP sink arrives at 50/s ± 10 % with both sending, not 100/s (each worker's own 50/s before). The first second
// and a half are left out: the shared bucket starts full (one second's worth). SQLite has one process: nothing to
// show here (test/integration/dispatcher/account-send-rates.test.ts runs the same buckets on both databases).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, createCampaign, type CampaignSetup } from '../../helpers/campaigns.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

const CLI = ['--import', 'tsx', 'src/cli/index.ts']
const RATE = 50
/** Enough that neither 50/s nor 100/s runs out within the measurement. */
const RECIPIENTS = 800
const SKIP_MS = 1500
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
    await waitFor(() => sink.received.length > 0)
    await sleep(SKIP_MS)
    const from = { at: performance.now(), count: sink.received.length }
    await sleep(WINDOW_MS)
    const to = { at: performance.now(), count: sink.received.length }
    const rate = ((to.count - from.count) * 1000) / (to.at - from.at)
    test.diagnostic(`${to.count - from.count} messages in ${((to.at - from.at) / 1000).toFixed(2)} s: ${rate.toFixed(1)}/s`)
    assert.ok(to.count < RECIPIENTS, 'the campaign was still sending at the end of the window')
    assert.ok(Math.abs(rate - RATE) <= RATE * 0.1, `${rate.toFixed(1)}/s with two workers at TIDINGS_EMAIL_RATE=${RATE}`)
    const recipients = sink.received.flatMap((r) => r.envelopeTo)
    assert.equal(new Set(recipients).size, recipients.length, 'each recipient once')
  })

  it('stops both workers cleanly on SIGTERM while they send', async () => {
    for (const w of workers) w.process.kill('SIGTERM')
    assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0])
  })
})
