// The set-up of README "Running several processes" (issue 20, item 1): `tidings serve --no-dispatch` ×2 and
// `tidings worker` ×2 on one PostgreSQL. A campaign of 20,000 created through one API process, followed through the
// other, and sent by both workers: every recipient reaches the SMTP sink exactly once (no worker is killed, so no
// batch may go twice; the chaos test kills them) and every message ends with one final status. SQLite is one
// process: nothing to show.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, HTML, type CampaignSetup } from '../../helpers/campaigns.js'
import { MESSAGE_STATUS } from '../../../src/storage/repos/messages.js'
import { CLI } from '../../helpers/cli.js'

const RECIPIENTS = 20_000
/** A loaded 2-core CI machine sends ~1,000 a second through two workers: 20 s; this bounds a hang, not the speed. */
const SEND_WITHIN_MS = 180_000

interface Tidings {
  process: ChildProcess
  /** The API's address, once `serve` said it serves. */
  address: Promise<string>
  exited: Promise<number | null>
}

function start(args: string[], env: NodeJS.ProcessEnv): Tidings {
  const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const address = new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const line = JSON.parse(text) as { msg?: string; address?: string }
      if (line.msg === 'tidings is serving' && line.address) resolve(line.address)
    }),
  )
  return { process: child, address, exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) }
}

describe('two API processes and two workers on postgres', () => {
  let t: TestApp
  let sink: SmtpSink
  let setup: CampaignSetup
  let processes: Tidings[] = []
  let apis: string[] = []
  const call = async (api: string, path: string, init: RequestInit = {}) => {
    const answer = await fetch(`${api}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${setup.account.token}`, 'content-type': 'application/json', ...init.headers },
      signal: AbortSignal.timeout(10_000),
    })
    const body = await answer.text()
    assert.equal(answer.status, 200, body)
    return JSON.parse(body) as Record<string, unknown>
  }

  before(async () => {
    // The list is filled in this process (the same API code); everything after goes through the spawned ones.
    t = await startTestApp('postgres', { apiRatePerSecond: 0 })
    sink = await startSmtpSink({ envelopesOnly: true })
    setup = await campaignSetup(t, RECIPIENTS)
    const env = { DATABASE_URL: t.database.url, TIDINGS_SMTP_URL: sink.url }
    processes = [
      start(['serve', '--no-dispatch', '--port', '0'], env),
      start(['serve', '--no-dispatch', '--port', '0'], env),
      start(['worker'], env),
      start(['worker'], env),
    ]
    apis = await Promise.all(processes.slice(0, 2).map((p) => p.address))
  })
  after(async () => {
    for (const p of processes) p.process.kill('SIGTERM')
    await Promise.all(processes.map((p) => p.exited))
    await sink?.close()
    await t.close()
  })

  it('sends a campaign of 20,000 once to each recipient, every message with one final status', async () => {
    const created = await call(apis[0]!, '/campaigns', {
      method: 'POST',
      body: JSON.stringify({ sender_name: 'News', sender_email: setup.sender, subject: 'Hi {{name}}', body: Buffer.from(HTML).toString('base64'), list_id: setup.bookId }),
    })
    const id = Number(created.id)
    const deadline = Date.now() + SEND_WITHIN_MS
    let status = 0
    while (Date.now() < deadline && (status = Number((await call(apis[1]!, `/campaigns/${id}`)).status)) !== 3) await sleep(250)
    assert.equal(status, 3, `the campaign ends sent (${sink.recipients.length} of ${RECIPIENTS} arrived)`)

    // Nothing more may come: a batch sent twice would arrive after the end too.
    await sleep(500)
    const times = new Map<string, number>()
    // The sender's activation email went out through the same relay: the outbox's, not the campaign's.
    for (const to of sink.recipients.filter((to) => to !== setup.sender)) times.set(to, (times.get(to) ?? 0) + 1)
    assert.equal(times.size, RECIPIENTS, 'every recipient arrived')
    assert.deepEqual([...times.values()].filter((n) => n !== 1), [], 'none twice')
    assert.deepEqual([...times.keys()].sort(), [...setup.emails].sort())

    const statuses = await t.deps.db.selectFrom('messages').select(['status', 'queued', 'lease_token']).where('campaign_id', '=', id).execute()
    assert.equal(statuses.length, RECIPIENTS)
    assert.deepEqual(
      statuses.filter((m) => m.status !== MESSAGE_STATUS.delivered || m.queued !== 0 || m.lease_token !== null),
      [],
      'each message delivered, off the queue, its lease let go',
    )
    const workers = await t.deps.db.selectFrom('workers').select('role').execute()
    assert.deepEqual(workers.map((w) => w.role).sort(), ['worker', 'worker'], 'both workers registered; the API processes do not dispatch')
  })
})
