// Work that must run once at a time, with two `tidings worker` processes on one PostgreSQL
// (docs/decisions/0005-once-at-a-time.md): each queued tag job is applied once (row leases, FOR UPDATE SKIP
// LOCKED); the hourly clean-up of webhook deliveries, which both workers' timers start together, runs in one
// of them (an advisory lock and the shared time of its last run); each webhook event reaches its URL once and
// in creation order (endpoint leases); a scheduled campaign's messages go to the relay once each (message
// leases). SQLite has one process: nothing to show.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, campaignStatus, createCampaign, type CampaignSetup } from '../../helpers/campaigns.js'
import { toWireDate } from '../../../src/lib/wire-date.js'
import { CLI } from '../../helpers/cli.js'

const TAG_JOBS = 30
/** new_emails events: half queued before the workers start, half while they run. */
const CONTACT_EVENTS = 40
const RECIPIENTS = 50
/** The campaign is due this long after its creation, when both workers are (about to be) polling. */
const SEND_DELAY_MS = 2_000
const WEBHOOKS = '/v2/email-service/webhook'

interface Worker {
  process: ChildProcess
  messages: string[]
  exited: Promise<number | null>
}

function startWorker(databaseUrl: string, smtpUrl: string): Worker {
  const child = spawn(process.execPath, [...CLI, 'worker'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', TIDINGS_SMTP_URL: smtpUrl, TIDINGS_WEBHOOK_ALLOW_PRIVATE: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const messages: string[] = []
  createInterface({ input: child.stdout! }).on('line', (text) => messages.push(String((JSON.parse(text) as { msg?: unknown }).msg)))
  return { process: child, messages, exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) }
}

/** Polls every 100 ms until `done` holds, for 15 s at most (the assertions after it say what was missing). */
async function waitFor(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150 && !(await done()); i++) await sleep(100)
}

async function subscribe(t: TestApp, account: TestAccount, url: string, actions: string[]): Promise<void> {
  const answer = await t.call(account, { method: 'POST', url: WEBHOOKS, payload: { url, actions } })
  assert.equal(answer.statusCode, 200, answer.body)
}

describe('once at a time with two workers on postgres', () => {
  let t: TestApp
  let account: TestAccount
  let bookId: number
  let contactsHook: WebhookReceiver
  let deliveredHook: WebhookReceiver
  let sink: SmtpSink
  let campaign: CampaignSetup
  let campaignId: number
  let workers: Worker[] = []
  const contactEmails = Array.from({ length: CONTACT_EVENTS }, (_, i) => `joined${i}@example.com`)
  const addContact = async (email: string) => {
    const added = await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails`, payload: { emails: [email] } })
    assert.equal(added.statusCode, 200, added.body)
  }

  before(async () => {
    t = await startTestApp('postgres', { webhookAllowPrivate: true })
    ;[contactsHook, deliveredHook, sink] = await Promise.all([startWebhookReceiver(), startWebhookReceiver(), startSmtpSink()])
    account = await t.account()
    // Queued before either worker starts, so both claim from the same backlog at once.
    for (let i = 0; i < TAG_JOBS; i++) {
      const queued = await t.call(account, { method: 'POST', url: '/tags', payload: { name: `tag ${i}`, color: '#123456' } })
      assert.equal(queued.statusCode, 200, queued.body)
    }
    await subscribe(t, account, contactsHook.url, ['new_emails'])
    bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Joined' } })).json<{ id: number }>().id
    for (const email of contactEmails.slice(0, CONTACT_EVENTS / 2)) await addContact(email)

    campaign = await campaignSetup(t, RECIPIENTS)
    // Each worker records `delivered` events for the messages it sends: one URL fed by both processes.
    await subscribe(t, campaign.account, deliveredHook.url, ['delivered'])
    const created = await createCampaign(t, campaign, { send_date: toWireDate(Math.ceil((Date.now() + SEND_DELAY_MS) / 1000) * 1000) })
    assert.equal(created.statusCode, 200, created.body)
    campaignId = created.json<{ id: number }>().id

    workers = [startWorker(t.database.url, sink.url), startWorker(t.database.url, sink.url)]
    for (const email of contactEmails.slice(CONTACT_EVENTS / 2)) await addContact(email)
  })
  after(async () => {
    for (const w of workers) w.process.kill('SIGTERM')
    await Promise.all(workers.map((w) => w.exited))
    await Promise.all([contactsHook?.close(), deliveredHook?.close(), sink?.close()])
    await t.close()
  })

  it('applies each tag job once', async () => {
    const tagCount = async () => (await t.deps.db.selectFrom('tags').select('id').execute()).length
    await waitFor(async () => (await tagCount()) >= TAG_JOBS)
    await sleep(500)
    const tags = (await t.call(account, { method: 'GET', url: '/tags' })).json<{ tags: { name: string }[] }>().tags
    assert.equal(tags.length, TAG_JOBS, 'each creation applied once')
    assert.equal(new Set(tags.map((x) => x.name)).size, TAG_JOBS)
  })

  it('runs the hourly webhook clean-up in one worker', async () => {
    // Both have polled (a worker runs the clean-up check at its first webhook poll, 250 ms apart at most).
    await waitFor(() => workers.every((w) => w.messages.includes('tidings worker is running')))
    await sleep(1000)
    const cleanUps = workers.map((w) => w.messages.filter((m) => m === 'old webhook deliveries forgotten').length)
    assert.deepEqual(cleanUps.sort(), [0, 1], 'one worker ran the clean-up, the other skipped it')
  })

  it('delivers each webhook event once, in creation order, to each URL', async () => {
    const received = (hook: WebhookReceiver) => hook.received.flatMap((d) => d.events)
    await waitFor(() => received(contactsHook).length >= CONTACT_EVENTS && received(deliveredHook).length >= RECIPIENTS)
    await sleep(500)
    const joined = received(contactsHook)
    assert.deepEqual(joined.map((e) => e.email), contactEmails, 'the new_emails events, each once, in the order the contacts were added')
    const ids = joined.map((e) => Number(e.id))
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in event order')

    const delivered = received(deliveredHook)
    assert.deepEqual(delivered.map((e) => e.email).sort(), [...campaign.emails].sort(), 'one delivered event per recipient, from both workers')
    const deliveredIds = delivered.map((e) => Number(e.id))
    assert.deepEqual(deliveredIds, [...deliveredIds].sort((a, b) => a - b), 'in event order, though two processes recorded them')
  })

  it('sends each message of a scheduled campaign once and marks it sent', async () => {
    await waitFor(async () => (await campaignStatus(t, campaign, campaignId)) === 3)
    assert.equal(await campaignStatus(t, campaign, campaignId), 3)
    const recipients = sink.received.flatMap((r) => r.envelopeTo).filter((to) => campaign.emails.includes(to))
    assert.deepEqual(recipients.sort(), [...campaign.emails].sort(), 'each recipient got the email once')
  })

  it('stops both workers cleanly on SIGTERM', async () => {
    for (const w of workers) w.process.kill('SIGTERM')
    assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0])
  })
})
