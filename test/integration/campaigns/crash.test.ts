// A worker killed with SIGKILL half-way through a campaign loses nothing: after a restart every recipient
// ends with exactly one final status and got the email, and duplicates stay within the batches in flight.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, campaignStatus, createCampaign } from '../../helpers/campaigns.js'
import { assertCountsMatchRows } from '../../helpers/campaign-counts.js'
import { CLI } from '../../helpers/cli.js'

const RECIPIENTS = 400
/** The campaign sender's messages in flight (2 batches of 50): the most a crash may send twice. */
const IN_FLIGHT = 100

for (const dialect of DIALECTS) {
  describe(`a worker killed mid-campaign on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      sink = await startSmtpSink()
    })
    after(async () => {
      await sink.close()
      await t.close()
    })

    const startWorker = (): ChildProcess =>
      spawn(process.execPath, [...CLI, 'worker'], {
        env: { ...process.env, DATABASE_URL: t.database.url, LOG_LEVEL: 'warn', TIDINGS_SMTP_URL: sink.url, TIDINGS_SEND_LEASE: '2' },
        stdio: ['ignore', 'ignore', 'inherit'],
      })

    it('resumes after SIGKILL and restart: one final status per recipient, every email arrived', async () => {
      const setup = await campaignSetup(t, RECIPIENTS)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const ours = () => sink.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? ''))
      sink.delayMs = 5

      const first = startWorker()
      const killed = new Promise((resolve) => first.on('close', resolve))
      for (let i = 0; i < 600 && ours().length < 120; i++) await sleep(50)
      first.kill('SIGKILL')
      await killed
      const atKill = ours().length
      assert.ok(atKill > 0 && atKill < RECIPIENTS, `killed half-way (${atKill} delivered)`)

      sink.delayMs = 0
      const second = startWorker()
      const stopped = new Promise((resolve) => second.on('close', resolve))
      try {
        for (let i = 0; i < 600 && (await campaignStatus(t, setup, id)) !== 3; i++) await sleep(100)
      } finally {
        second.kill('SIGTERM')
        await stopped
      }
      assert.equal(await campaignStatus(t, setup, id), 3)
      const rows = await t.deps.db.selectFrom('messages').select(['address as email', 'status', 'queued']).where('campaign_id', '=', id).execute()
      assert.equal(rows.length, RECIPIENTS)
      assert.deepEqual([...new Set(rows.map((r) => `${r.status}/${r.queued}`))], ['2/0'], 'every message delivered, none queued')
      const perAddress = new Map<string, number>()
      for (const r of ours()) perAddress.set(r.envelopeTo[0]!, (perAddress.get(r.envelopeTo[0]!) ?? 0) + 1)
      assert.equal(perAddress.size, RECIPIENTS, 'every recipient got the email')
      const duplicates = [...perAddress.values()].reduce((sum, n) => sum + n - 1, 0)
      assert.ok(duplicates <= IN_FLIGHT, `duplicates within the batches in flight (${duplicates})`)
      await assertCountsMatchRows(t.deps.db, 'the campaign counts survived the kill: equal to a recount of the messages')
    })
  })
}
