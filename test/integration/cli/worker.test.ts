// `tidings worker` runs the dispatcher without the API: jobs queued by an API process (here one that
// dispatches nothing) are applied by the worker, service emails are sent (captured: no relay), and SIGTERM
// stops it cleanly.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { CLI } from '../../helpers/cli.js'


for (const dialect of DIALECTS) {
  describe(`tidings worker on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('applies jobs and sends the outbox queued by another process, and stops on SIGTERM', async () => {
      const queued = await t.call(account, { method: 'POST', url: '/tags', payload: { name: 'from the api', color: '#123456' } })
      assert.equal(queued.statusCode, 200, queued.body)
      await t.call(account, { method: 'POST', url: '/senders', payload: { email: 'me@example.org', name: 'Me' } })
      await t.call(account, { method: 'GET', url: '/senders/me@example.org/code' })

      const worker = spawn(process.execPath, [...CLI, 'worker'], {
        env: { ...process.env, DATABASE_URL: t.database.url, LOG_LEVEL: 'info', TIDINGS_SMTP_URL: '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const messages: string[] = []
      createInterface({ input: worker.stdout! }).on('line', (text) => messages.push(String((JSON.parse(text) as { msg?: unknown }).msg)))
      // 'close' comes after the output is all read ('exit' may come before the last lines).
      const exited = new Promise<number | null>((resolve) => worker.on('close', (code) => resolve(code)))
      try {
        const tags = async () => (await t.call(account, { method: 'GET', url: '/tags' })).json<{ tags: { name: string }[] }>().tags
        const outbox = async () => (await t.call(account, { method: 'GET', url: '/outbox' })).json<{ status: string }[]>()
        for (let i = 0; i < 100 && ((await tags()).length === 0 || (await outbox())[0]?.status !== 'captured'); i++) await sleep(100)
        assert.deepEqual((await tags()).map((x) => x.name), ['from the api'])
        assert.equal((await outbox())[0]?.status, 'captured')
      } finally {
        worker.kill('SIGTERM')
      }
      assert.equal(await exited, 0)
      assert.ok(messages.includes('tidings worker is running'), messages.join(' | '))
      assert.ok(messages.includes('tidings worker stopped'), messages.join(' | '))
    })
  })
}
