// The job runner over a real database: queued changes survive a restart, an expired lease lets another
// runner take a job, failures roll back and are retried with backoff until the limit, and concurrent claims
// never take the same job twice.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql, type Kysely } from 'kysely'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { openDatabase } from '../../../src/storage/db.js'
import * as jobsRepo from '../../../src/storage/repos/jobs.js'
import * as tagsRepo from '../../../src/storage/repos/tags.js'
import * as tags from '../../../src/services/audience/tags.js'
import { JobRunner, type JobHandler } from '../../../src/dispatcher/jobs.js'
import type { Deps } from '../../../src/services/types.js'
import type { Database } from '../../../src/storage/tables.js'

for (const dialect of DIALECTS) {
  describe(`job runner on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount

    const jobOf = (queueId: string) => t.deps.db.selectFrom('jobs').selectAll().where('queue_id', '=', queueId).executeTakeFirstOrThrow()
    const enqueue = (kind: string, payload: unknown = {}) => jobsRepo.enqueueJob(t.deps.db, { accountId: account.id, kind, payload, now: t.clock.now })
    /** A handler that writes a tag through its transaction, so the test can see whether its work was kept. */
    const writeTag: JobHandler = async (deps, payload, tx) => {
      await tagsRepo.createTag(tx, { accountId: account.id, name: (payload as { name: string }).name, color: '#000', now: deps.now() })
    }
    const tagNames = async () => (await tagsRepo.listTags(t.deps.db, account.id)).map((tag) => tag.name)

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('applies a change queued by a server that was then shut down, from a fresh connection to the same database', async () => {
      // A separate app on its own database: it is closed mid-test, the database is kept.
      const first = await startTestApp(dialect)
      const owner = await first.account()
      const res = await first.call(owner, { method: 'POST', url: '/tags', payload: { name: 'Survivor', color: '#123456' } })
      assert.equal(res.statusCode, 200, res.body)
      const queueId = res.json<{ queue_id: string }>().queue_id
      await first.app.close()
      await first.database.storage.close()

      const storage = openDatabase(first.database.url)
      try {
        const deps: Deps = { ...first.deps, db: storage.db }
        const job = await storage.db.selectFrom('jobs').select('status').where('queue_id', '=', queueId).executeTakeFirstOrThrow()
        assert.equal(job.status, 'queued')
        assert.equal(await new JobRunner(deps, tags.jobHandlers).runDue(), 1)
        assert.deepEqual(
          (await tagsRepo.listTags(storage.db, owner.id)).map((tag) => [tag.name, tag.color]),
          [['Survivor', '#123456']],
        )
      } finally {
        await storage.close()
        await first.database.drop()
      }
    })

    it('claims a job again once the lease of a runner that died has expired, and fences out the dead runner', async () => {
      const queueId = await enqueue('test.write', { name: 'after the lease' })
      const dead = await jobsRepo.claimDueJobs(t.deps.db, { now: t.clock.now, limit: 10, leaseMs: 5000 })
      assert.deepEqual(dead.map((job) => job.queueId), [queueId])

      const runner = new JobRunner(t.deps, { 'test.write': writeTag })
      assert.equal(await runner.runDue(), 0)
      t.clock.advance(5000)
      assert.equal(await runner.runDue(), 0, 'the lease still holds at its last millisecond')
      t.clock.advance(1)
      assert.equal(await runner.runDue(), 1)
      const job = await jobOf(queueId)
      assert.deepEqual([job.status, Number(job.attempts)], ['done', 2])
      assert.deepEqual(await tagNames(), ['after the lease'])
      await t.deps.db.deleteFrom('tags').where('account_id', '=', account.id).execute()

      // A runner that was only slow, finishing after its job was claimed again, can neither complete nor fail
      // it: its attempt number is stale, so its transaction rolls back and the new holder's outcome counts.
      const second = await enqueue('test.write', { name: 'slow' })
      const [slow] = await jobsRepo.claimDueJobs(t.deps.db, { now: t.clock.now, limit: 10, leaseMs: 1000 })
      t.clock.advance(1001)
      const [current] = await jobsRepo.claimDueJobs(t.deps.db, { now: t.clock.now, limit: 10, leaseMs: 1000 })
      assert.equal(slow?.queueId, second)
      assert.equal(current?.queueId, second)
      const stale = { id: slow.id, attempts: slow.attempts, now: t.clock.now }
      assert.equal(await jobsRepo.completeJob(t.deps.db, stale), false)
      assert.equal(await jobsRepo.failJob(t.deps.db, { ...stale, error: 'late', outcome: { final: true } }), false)
      assert.equal((await jobOf(second)).status, 'queued')
      assert.equal(await jobsRepo.completeJob(t.deps.db, { id: current.id, attempts: current.attempts, now: t.clock.now }), true)
      assert.equal((await jobOf(second)).status, 'done')
    })

    it('rolls back a failing handler, retries it with growing delays, and marks it failed after the limit', async () => {
      const failing: JobHandler = async (deps, payload, tx) => {
        await writeTag(deps, payload, tx)
        throw new Error('provider said no')
      }
      const runner = new JobRunner(t.deps, { 'test.fail': failing }, { maxAttempts: 3 })
      const queueId = await enqueue('test.fail', { name: 'never kept' })

      assert.equal(await runner.runDue(), 1)
      let job = await jobOf(queueId)
      assert.deepEqual([job.status, Number(job.attempts), job.last_error, Number(job.run_at)], ['queued', 1, 'provider said no', t.clock.now + 1000])
      assert.equal(job.locked_until, null)
      assert.deepEqual(await tagNames(), [], 'the handler’s write was rolled back')

      assert.equal(await runner.runDue(), 0, 'not due before its retry time')
      t.clock.advance(999)
      assert.equal(await runner.runDue(), 0)
      t.clock.advance(1)
      assert.equal(await runner.runDue(), 1)
      job = await jobOf(queueId)
      assert.deepEqual([job.status, Number(job.attempts), Number(job.run_at)], ['queued', 2, t.clock.now + 2000])

      t.clock.advance(2000)
      assert.equal(await runner.runDue(), 1)
      job = await jobOf(queueId)
      assert.deepEqual([job.status, Number(job.attempts), job.last_error], ['failed', 3, 'provider said no'])
      t.clock.advance(60 * 60_000)
      assert.equal(await runner.runDue(), 0, 'a failed job is never claimed again')
      assert.deepEqual(await tagNames(), [])
    })

    it('fails a job of a kind no handler knows, and one whose every attempt was interrupted', async () => {
      const runner = new JobRunner(t.deps, {}, { maxAttempts: 1 })
      const unknown = await enqueue('test.unknown')
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual([(await jobOf(unknown)).status, (await jobOf(unknown)).last_error], ['failed', 'no handler for job kind "test.unknown"'])

      const interrupted = await enqueue('test.write', { name: 'interrupted' })
      await jobsRepo.claimDueJobs(t.deps.db, { now: t.clock.now, limit: 10, leaseMs: 1000 })
      t.clock.advance(1001)
      const patient = new JobRunner(t.deps, { 'test.write': writeTag }, { maxAttempts: 1 })
      assert.equal(await patient.runDue(), 1)
      const job = await jobOf(interrupted)
      assert.deepEqual([job.status, job.last_error], ['failed', 'the runner stopped during every attempt'])
      assert.deepEqual(await tagNames(), [])
    })

    it('claims due jobs oldest first, in batches, and never hands one job to two runners claiming at once', async () => {
      const ids: string[] = []
      for (let i = 0; i < 12; i++) {
        ids.push(await enqueue('test.write', { name: `job ${i}` }))
        t.clock.advance(1)
      }
      const claim = (db: Kysely<Database>, limit: number) => jobsRepo.claimDueJobs(db, { now: t.clock.now, limit, leaseMs: 60_000 })
      assert.deepEqual((await claim(t.deps.db, 3)).map((job) => job.queueId), ids.slice(0, 3))

      const [a, b] = await t.deps.db.transaction().execute(async (tx) => {
        const held = await claim(tx, 6)
        // SQLite has one connection: a second claim can only run after this transaction.
        if (dialect === 'sqlite') return [held, undefined]
        // PostgreSQL: a second runner claims on another connection while this transaction still holds its rows.
        // It must skip them; waiting for them instead would end on the lock timeout and fail the test.
        const other = await t.deps.db.transaction().execute(async (otx) => {
          await sql`set local lock_timeout = '2s'`.execute(otx)
          return claim(otx, 6)
        })
        return [held, other]
      })
      const claimed = [...a, ...(b ?? (await claim(t.deps.db, 6)))].map((job) => job.queueId)
      assert.equal(new Set(claimed).size, claimed.length, 'no job claimed twice')
      assert.deepEqual([...claimed].sort(), ids.slice(3).sort(), 'between them, the two claims took every remaining job')
      const attempts = await t.deps.db.selectFrom('jobs').select('attempts').where('queue_id', 'in', ids).execute()
      assert.ok(attempts.every((row) => Number(row.attempts) === 1), 'each claimed exactly once')
      await t.deps.db.updateTable('jobs').set({ status: 'done' }).where('queue_id', 'in', ids).execute()
    })

    it('runs a job queued by a job at once, without the pause between idle polls', async () => {
      // Each step writes a tag and queues the next, as a campaign's copy queues its next batch; the pause between
      // polls is an hour, so the chain ends only if a round that ran a job polls again at once.
      const step: JobHandler = async (deps, payload, tx) => {
        const n = (payload as { n: number }).n
        await tagsRepo.createTag(tx, { accountId: account.id, name: `step ${n}`, color: '#000', now: deps.now() })
        if (n < 3) await jobsRepo.enqueueJob(tx, { accountId: account.id, kind: 'test.step', payload: { n: n + 1 }, now: deps.now() })
      }
      const runner = new JobRunner(t.deps, { 'test.step': step }, { pollMs: 3_600_000 })
      await enqueue('test.step', { n: 1 })
      runner.start()
      try {
        for (let i = 0; i < 200 && !(await tagNames()).includes('step 3'); i++) await sleep(25)
      } finally {
        await runner.stop()
      }
      assert.deepEqual((await tagNames()).filter((name) => name.startsWith('step ')).sort(), ['step 1', 'step 2', 'step 3'])
    })

    it('runs queued jobs by itself once started, and stop() waits for the round in flight', async () => {
      const runner = new JobRunner(t.deps, tags.jobHandlers, { pollMs: 5 })
      // A new account: the earlier tests moved the clock past the first one's token.
      const owner = await t.account()
      const res = await t.call(owner, { method: 'POST', url: '/tags', payload: { name: 'Polled', color: '#abcdef' } })
      assert.equal(res.statusCode, 200, res.body)
      const queueId = res.json<{ queue_id: string }>().queue_id
      runner.start()
      try {
        for (let i = 0; i < 1000 && (await jobOf(queueId)).status !== 'done'; i++) await sleep(5)
      } finally {
        await runner.stop()
      }
      assert.equal((await jobOf(queueId)).status, 'done')
      assert.deepEqual((await tagsRepo.listTags(t.deps.db, owner.id)).map((tag) => tag.name), ['Polled'])
      // Stopped: a new job stays queued.
      const later = await enqueue('tags.create', { accountId: owner.id, name: 'Later', color: '#fff' })
      await sleep(50)
      assert.equal((await jobOf(later)).status, 'queued')
    })
  })
}
