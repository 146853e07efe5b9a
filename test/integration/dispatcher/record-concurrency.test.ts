// Batches of one campaign recorded by several senders at once (issue 20: workers on one PostgreSQL). A batch's
// recording writes its messages before it takes the campaign's lock, which it needs only to decide the campaign's
// end: taken first, the batches of a campaign recorded one at a time (docs/benchmarks.md, bench:scale). The end is
// still decided once, by the last batch.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, campaignStatus, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { emailSender } from '../../../src/dispatcher/email-driver.js'

const RECIPIENTS = 40
const BATCH = 10

for (const dialect of DIALECTS) {
  describe(`recording batches of one campaign at once on ${dialect}`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
    })
    after(() => t.close())

    it('writes a batch while another holds the campaign lock, and ends the campaign once', async () => {
      const setup = await campaignSetup(t, RECIPIENTS)
      const hook = await t.call(setup.account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url: 'https://hooks.example.com/tidings', actions: ['task_status_update'] } })
      assert.equal(hook.statusCode, 200, hook.body)
      const created = await createCampaign(t, setup)
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json<{ id: number }>().id
      const first = dispatcher(t, captureChannel(), { batchSize: BATCH })
      await first.jobs.runDue()

      if (dialect === 'postgres') {
        // Another recording deciding the campaign's end holds its lock (finishIfDone's FOR NO KEY UPDATE) …
        const holder = new pg.Client({ connectionString: t.database.url })
        await holder.connect()
        try {
          await holder.query('begin')
          await holder.query('select id from campaigns where id = $1 for no key update', [id])
          const batch = first.sender.sendDue()
          // … until this batch's recording waits for it.
          const deadline = Date.now() + 10_000
          for (;;) {
            const waiting = await holder.query("select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")
            if (waiting.rowCount) break
            assert.ok(Date.now() < deadline, 'the recording never waited for the campaign lock')
            await new Promise((r) => setTimeout(r, 20))
          }
          // Its messages are written already (row-locked by its transaction), not waiting behind the lock to be.
          const free = await holder.query('select id from messages where campaign_id = $1 for share skip locked', [id])
          assert.equal(free.rowCount, RECIPIENTS - BATCH, 'the waiting recording holds its batch of message rows')
          await holder.query('rollback')
          assert.equal(await batch, BATCH)
        } finally {
          await holder.end()
        }
      }

      // Two senders (two workers) record batches of the campaign side by side until none is due.
      const second = emailSender(t.deps, captureChannel(), { batchSize: BATCH })
      for (;;) {
        const claimed = await Promise.all([first.sender.sendDue(), second.sendDue(), first.sender.sendDue(), second.sendDue()])
        if (claimed.every((n) => n === 0)) break
      }
      assert.equal(await campaignStatus(t, setup, id), 3)
      const delivered = await t.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', id).where('status', '=', 2).executeTakeFirstOrThrow()
      assert.equal(Number(delivered.n), RECIPIENTS)
      const events = await t.deps.db.selectFrom('events').select('payload').where('account_id', '=', setup.account.id).where('action', '=', 'task_status_update').orderBy('id').execute()
      const statuses = events.map((e) => (JSON.parse(e.payload) as { task_id: number; status: number })).filter((e) => e.task_id === id).map((e) => String(e.status))
      assert.deepEqual(statuses, ['2', '3'], 'the campaign went 13 → 2 → 3, and ended once')
    })
  })
}
