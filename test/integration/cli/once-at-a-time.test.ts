// Work that must run once at a time, with two `tidings worker` processes on one PostgreSQL
// (docs/decisions/0005-once-at-a-time.md): each queued tag job is applied once (row leases, FOR UPDATE SKIP
// LOCKED), and the hourly clean-up of webhook deliveries, which both workers' timers start together, runs in
// one of them (an advisory lock and the shared time of its last run). SQLite has one process: nothing to show.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

const CLI = ['--import', 'tsx', 'src/cli/index.ts']
const TAG_JOBS = 30

interface Worker {
  process: ChildProcess
  messages: string[]
  exited: Promise<number | null>
}

function startWorker(databaseUrl: string): Worker {
  const child = spawn(process.execPath, [...CLI, 'worker'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', TIDINGS_SMTP_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const messages: string[] = []
  createInterface({ input: child.stdout! }).on('line', (text) => messages.push(String((JSON.parse(text) as { msg?: unknown }).msg)))
  return { process: child, messages, exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) }
}

describe('once at a time with two workers on postgres', () => {
  let t: TestApp
  let account: TestAccount
  before(async () => {
    t = await startTestApp('postgres')
    account = await t.account()
  })
  after(() => t.close())

  it('applies each tag job once and runs the hourly webhook clean-up in one worker', async () => {
    // Queued before either worker starts, so both claim from the same backlog at once.
    for (let i = 0; i < TAG_JOBS; i++) {
      const queued = await t.call(account, { method: 'POST', url: '/tags', payload: { name: `tag ${i}`, color: '#123456' } })
      assert.equal(queued.statusCode, 200, queued.body)
    }
    const workers = [startWorker(t.database.url), startWorker(t.database.url)]
    try {
      const done = () => t.deps.db.selectFrom('jobs').select('id').where('status', '=', 'done').execute()
      for (let i = 0; i < 150 && (await done()).length < TAG_JOBS; i++) await sleep(100)
      // Both have polled (a worker runs the clean-up check at its first webhook poll, 250 ms apart at most).
      for (let i = 0; i < 100 && !workers.every((w) => w.messages.includes('tidings worker is running')); i++) await sleep(100)
      await sleep(1000)
      const tags = (await t.call(account, { method: 'GET', url: '/tags' })).json<{ tags: { name: string }[] }>().tags
      assert.equal(tags.length, TAG_JOBS, 'each creation applied once')
      assert.equal(new Set(tags.map((x) => x.name)).size, TAG_JOBS)
      const cleanUps = workers.map((w) => w.messages.filter((m) => m === 'old webhook deliveries forgotten').length)
      assert.deepEqual(cleanUps.sort(), [0, 1], 'one worker ran the clean-up, the other skipped it')
    } finally {
      for (const w of workers) w.process.kill('SIGTERM')
    }
    for (const w of workers) assert.equal(await w.exited, 0)
  })
})
