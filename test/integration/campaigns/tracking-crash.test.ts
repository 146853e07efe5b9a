// A server killed with SIGKILL while readers click loses no click it answered: a hit is answered only once its
// batch is committed (src/tracking/hit-batches.ts), so the clicks counted lie between those answered and those sent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { freePort } from '../../helpers/postgres.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { CLI } from '../../helpers/cli.js'

const READERS = 20
/** Clicks answered before the kill: enough that batches of many are being stored when it comes. */
const ANSWERED_BEFORE_KILL = 300

for (const dialect of DIALECTS) {
  describe(`a server killed while readers click on ${dialect}`, () => {
    let t: TestApp
    let setup: CampaignSetup
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      setup = await campaignSetup(t, 20)
    })
    after(() => t.close())

    it('counts every click it answered', async () => {
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
      const outbox = (await t.call(setup.account, { method: 'GET', url: `/outbox?campaign_id=${id}&limit=100` })).json<{ html: string }[]>()
      const clicks = outbox.map((o) => /\/t\/[^/"]+\/c\/0/.exec(o.html)![0])

      const port = await freePort()
      const server = spawn(process.execPath, [...CLI, 'serve', '--no-dispatch', '--host', '127.0.0.1', '--port', String(port)], {
        env: { ...process.env, DATABASE_URL: t.database.url, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      const exited = new Promise((resolve) => server.on('close', resolve))
      try {
        await until(async () => (await get(port, '/healthz').catch(() => 0)) === 200)
        let sent = 0
        let answered = 0
        const agent = new http.Agent({ keepAlive: true })
        const reader = async (first: number) => {
          for (let i = first; ; i += READERS) {
            sent++
            const status = await get(port, clicks[i % clicks.length]!, agent).catch(() => undefined)
            if (status === undefined) return
            assert.equal(status, 302)
            answered++
          }
        }
        const readers = Promise.all(Array.from({ length: READERS }, (_, i) => reader(i)))
        await until(async () => answered >= ANSWERED_BEFORE_KILL)
        server.kill('SIGKILL')
        await readers
        agent.destroy()
        const counted = await t.deps.db.selectFrom('campaign_link_clicks').select('clicks').where('campaign_id', '=', id).executeTakeFirstOrThrow()
        assert.ok(Number(counted.clicks) >= answered && Number(counted.clicks) <= sent, `${counted.clicks} clicks counted, ${answered} answered, ${sent} sent`)
      } finally {
        server.kill('SIGKILL')
        await exited
      }
    })
  })
}

/** The status of a GET on the server (the answer read to its end). */
function get(port: number, path: string, agent?: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return
    await sleep(20)
  }
  throw new Error('timed out')
}
