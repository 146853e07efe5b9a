// `tidings status` with real processes (issue 20, item 1): a `tidings worker` and a dispatching `tidings serve`
// are listed while they run; the one stopped with SIGTERM leaves the list at once, the one killed with SIGKILL
// once its heartbeats are missed (TIDINGS_HEARTBEAT is short here); a database that cannot be reached is a clear
// error and a non-zero exit.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS, createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { liveWorkers } from '../../../src/storage/repos/workers.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)
const HEARTBEAT_SECONDS = 0.2

interface Status {
  workers: { id: string; role: string; hostname: string; pid: number; version: string; startedAt: string; heartbeatAt: string }[]
  queues: Record<string, { depth: number; oldestDueAgeSeconds: number | null }>
}

for (const dialect of DIALECTS) {
  describe(`tidings status on ${dialect}`, () => {
    let database: TestDatabase
    let env: NodeJS.ProcessEnv
    const processes: ChildProcess[] = []
    const status = async () => JSON.parse((await run(process.execPath, [...CLI, 'status'], { env })).stdout) as Status
    /** Polls the registry (in this process: cheaper than a CLI start each time) until `done` holds, 15 s at most. */
    const liveUntil = async (done: (pids: number[]) => boolean) => {
      for (let i = 0; i < 150; i++) {
        const pids = (await liveWorkers(database.storage.db, Date.now())).map((w) => w.pid)
        if (done(pids)) return pids
        await sleep(100)
      }
      assert.fail('the registry never showed the expected workers')
    }

    before(async () => {
      database = await createTestDatabase(dialect)
      env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn', TIDINGS_SMTP_URL: '', TIDINGS_HEARTBEAT: String(HEARTBEAT_SECONDS) }
    })
    after(async () => {
      for (const child of processes) child.kill('SIGKILL')
      await database.drop()
    })

    it('lists the running worker and dispatching server, not after a clean stop, nor once a killed one misses its heartbeats', async () => {
      const start = (...args: string[]) => {
        const child = spawn(process.execPath, [...CLI, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] })
        processes.push(child)
        return { child, exited: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) }
      }
      const worker = start('worker')
      const server = start('serve', '--port', '0', '--host', '127.0.0.1')
      const both = [worker.child.pid!, server.child.pid!]
      await liveUntil((pids) => both.every((pid) => pids.includes(pid)))

      const shown = await status()
      const roles = Object.fromEntries(shown.workers.map((w) => [w.pid, w.role]))
      assert.deepEqual(roles, { [worker.child.pid!]: 'worker', [server.child.pid!]: 'serve' })
      for (const w of shown.workers) {
        assert.match(w.id, /^[0-9a-f-]{36}$/)
        assert.ok(w.hostname.length > 0 && /^\d+\.\d+\.\d+/.test(w.version), JSON.stringify(w))
        assert.ok(Date.parse(w.startedAt) <= Date.parse(w.heartbeatAt), JSON.stringify(w))
      }
      const idle = { depth: 0, oldestDueAgeSeconds: null }
      assert.deepEqual(shown.queues, { email: idle, sms: idle, viber: idle, jobs: idle, webhooks: idle, outbox: idle })

      worker.child.kill('SIGTERM')
      assert.equal(await worker.exited, 0)
      const rows = async () => (await database.storage.db.selectFrom('workers').select('pid').execute()).map((r) => r.pid)
      assert.deepEqual(await rows(), [server.child.pid], 'the stopped worker deleted its row')

      server.child.kill('SIGKILL')
      await server.exited
      await liveUntil((pids) => pids.length === 0)
      assert.deepEqual(await rows(), [server.child.pid], 'the killed one left its row, listed no more')
    })

    it('fails with a clear message and a non-zero exit when the database cannot be reached', async () => {
      // PostgreSQL: nothing listens on port 1. SQLite: the file's folder cannot be made under a file.
      const url = dialect === 'postgres' ? 'postgres://tidings@127.0.0.1:1/tidings' : 'sqlite:/dev/null/tidings.db'
      await assert.rejects(run(process.execPath, [...CLI, 'status'], { env: { ...env, DATABASE_URL: url } }), (err: { code?: number; stdout?: string; stderr?: string }) => {
        assert.equal(err.code, 1)
        assert.equal(err.stdout, '')
        assert.match(err.stderr ?? '', dialect === 'postgres' ? /^tidings: cannot read the status: .*ECONNREFUSED/m : /^tidings: cannot read the status: .*(ENOTDIR|EEXIST).*mkdir/m)
        return true
      })
    })
  })
}
