// What `tidings status` and /metrics show of the dispatcher (issue 20, item 1), read in-process on a test clock:
// each queue's due items and the age of the oldest for a known set of rows (a scheduled campaign made due, a job,
// webhook events, a service email), the registry of live workers, and the gauges, left out (not failed) when the
// database does not answer.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign } from '../../helpers/campaigns.js'
import { JobRunner } from '../../../src/dispatcher/jobs.js'
import { WorkerPresence } from '../../../src/dispatcher/worker-presence.js'
import { campaignJobHandlers } from '../../../src/services/email/campaign-lifecycle.js'
import { readStatus } from '../../../src/services/operations/status.js'
import { buildServer } from '../../../src/api/server.js'
import { openDatabase } from '../../../src/storage/db.js'
import { toWireDate } from '../../../src/lib/wire-date.js'
import * as workers from '../../../src/storage/repos/workers.js'

const HOUR = 3_600_000

/** The samples of a metric in a /metrics body, by their labels. */
function samples(body: string, name: string): Record<string, number> {
  const found: Record<string, number> = {}
  for (const line of body.split('\n')) {
    const match = new RegExp(`^${name}\\{(\\w+)="([^"]+)"\\} (\\S+)$`).exec(line)
    if (match) found[match[2]!] = Number(match[3])
  }
  return found
}

for (const dialect of DIALECTS) {
  describe(`dispatch status on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { heartbeatSeconds: 0.1 })
    })
    after(() => t.close())

    it("counts each queue's due items and the age of the oldest, and shows them on /metrics", async () => {
      const start = t.clock.now
      // Leaves the sender's activation code queued in the outbox, due since `start`.
      const setup = await campaignSetup(t, 3)
      const sendAt = Math.ceil((start + HOUR) / 1000) * 1000
      const created = await createCampaign(t, setup, { send_date: toWireDate(sendAt) })
      assert.equal(created.statusCode, 200, created.body)
      const copier = new JobRunner(t.deps, campaignJobHandlers)
      while ((await copier.runDue()) > 0);
      // A tag job nobody runs here: due since `start`.
      assert.equal((await t.call(setup.account, { method: 'POST', url: '/tags', payload: { name: 'waiting', color: '#123456' } })).statusCode, 200)
      const hooked = await t.call(setup.account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url: 'https://hooks.example/status', actions: ['new_emails'] } })
      assert.equal(hooked.statusCode, 200, hooked.body)
      t.clock.advance(10_000)
      const eventsAt = t.clock.now
      const added = await t.call(setup.account, { method: 'POST', url: `/addressbooks/${setup.bookId}/emails`, payload: { emails: ['late1@example.com', 'late2@example.com'] } })
      assert.equal(added.statusCode, 200, added.body)

      const beforeSend = await readStatus(t.deps)
      assert.deepEqual(beforeSend.queues.email, { depth: 0, oldestDueAgeSeconds: null }, 'scheduled, not due yet')

      t.clock.now = sendAt + 30_000
      const seconds = (since: number) => (t.clock.now - since) / 1000
      const expected = {
        email: { depth: 3, oldestDueAgeSeconds: 30 },
        sms: { depth: 0, oldestDueAgeSeconds: null },
        viber: { depth: 0, oldestDueAgeSeconds: null },
        jobs: { depth: 1, oldestDueAgeSeconds: seconds(start) },
        webhooks: { depth: 2, oldestDueAgeSeconds: seconds(eventsAt) },
        outbox: { depth: 1, oldestDueAgeSeconds: seconds(start) },
      }
      const status = await readStatus(t.deps)
      assert.deepEqual(status, { workers: [], queues: expected })

      // A webhook endpoint waiting out a failed request's backoff has nothing due until then.
      await t.deps.db.updateTable('webhook_endpoints').set({ next_attempt_at: t.clock.now + 60_000 }).execute()
      assert.deepEqual((await readStatus(t.deps)).queues.webhooks, { depth: 0, oldestDueAgeSeconds: null })
      t.clock.advance(60_000)
      assert.deepEqual((await readStatus(t.deps)).queues.webhooks, { depth: 2, oldestDueAgeSeconds: 0 }, 'due since the retry time')
      t.clock.advance(-60_000)
      await t.deps.db.updateTable('webhook_endpoints').set({ next_attempt_at: 0 }).execute()

      const body = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
      assert.deepEqual(samples(body, 'tidings_queue_depth'), Object.fromEntries(Object.entries(expected).map(([queue, q]) => [queue, q.depth])))
      assert.deepEqual(
        samples(body, 'tidings_queue_oldest_due_age_seconds'),
        Object.fromEntries(Object.entries(expected).map(([queue, q]) => [queue, q.oldestDueAgeSeconds ?? 0])),
      )
      assert.deepEqual(samples(body, 'tidings_workers_live'), { serve: 0, worker: 0 })
    })

    it('lists a registered worker while it beats, forgets it on a clean stop, and leaves out and then deletes a dead one', async () => {
      const dead = { id: 'dead-worker', hostname: 'gone.example', pid: 1, role: 'worker' as const, version: '0.0.1', startedAt: t.clock.now - HOUR }
      await workers.recordHeartbeat(t.deps.db, dead, { now: t.clock.now - 60_000, liveUntil: t.clock.now - 1 })
      assert.deepEqual((await readStatus(t.deps)).workers, [], 'past its live_until')

      const presence = new WorkerPresence(t.deps, 'serve')
      presence.start()
      try {
        for (let i = 0; i < 100 && (await readStatus(t.deps)).workers.length === 0; i++) await sleep(20)
        const [listed, ...others] = (await readStatus(t.deps)).workers
        assert.deepEqual(others, [])
        assert.deepEqual({ ...listed!, heartbeatAt: 0, liveUntil: 0 }, { ...presence.worker, heartbeatAt: 0, liveUntil: 0 })
        assert.equal(listed!.pid, process.pid)
        assert.equal(listed!.liveUntil, listed!.heartbeatAt + 300, 'three heartbeats of 0.1 s')
        const ids = (await t.deps.db.selectFrom('workers').select('id').execute()).map((r) => r.id)
        assert.deepEqual(ids, [presence.worker.id], 'the dead row was deleted when this one registered')
        // Scrapes within a second share one read of the database (api/status-metrics.ts).
        const live = async () => samples((await t.app.inject({ method: 'GET', url: '/metrics' })).body, 'tidings_workers_live')
        for (let i = 0; i < 30 && (await live()).serve !== 1; i++) await sleep(100)
        assert.deepEqual(await live(), { serve: 1, worker: 0 })
      } finally {
        await presence.stop()
      }
      assert.deepEqual(await t.deps.db.selectFrom('workers').selectAll().execute(), [], 'deleted on a clean stop')
    })

    it('still answers /metrics without the status gauges when the database does not answer', async () => {
      // PostgreSQL: nothing listens there. SQLite: a file without the tables, so every read fails.
      const emptyDir = mkdtempSync(join(tmpdir(), 'tidings-empty-'))
      const broken =
        dialect === 'postgres' ? openDatabase('postgres://tidings@127.0.0.1:1/none', { connectSeconds: 1, statementSeconds: 1 }) : openDatabase(`sqlite:${join(emptyDir, 'empty.db')}`)
      const app = await buildServer({ ...t.deps, db: broken.db })
      try {
        await app.ready()
        const answer = await app.inject({ method: 'GET', url: '/metrics' })
        assert.equal(answer.statusCode, 200)
        assert.match(answer.body, /^process_cpu_user_seconds_total \d/m, 'the process metrics are there')
        assert.match(answer.body, /^# TYPE tidings_queue_depth gauge$/m)
        for (const name of ['tidings_workers_live', 'tidings_queue_depth', 'tidings_queue_oldest_due_age_seconds']) assert.deepEqual(samples(answer.body, name), {}, name)
      } finally {
        await app.close()
        await broken.close()
        rmSync(emptyDir, { recursive: true, force: true })
      }
    })
  })
}
