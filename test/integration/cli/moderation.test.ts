// TIDINGS_MODERATION=manual: campaigns of 20 or more recipients wait in status 1 for the operator, who lists
// them and approves (1 → 2, then sent) or rejects them (1 → 5, nothing sent, the balance given back) with
// the CLI. Smaller campaigns go straight out.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, campaignStatus, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

for (const dialect of DIALECTS) {
  describe(`manual moderation on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, moderation: 'manual' })
    })
    after(() => t.close())
    const tidings = async (...args: string[]) => JSON.parse((await run(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: t.database.url } })).stdout) as unknown

    it('holds large campaigns for the operator and lets small ones through', async () => {
      const setup = await campaignSetup(t, 20)
      const balance = async () => (await t.call(setup.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
      const approved = (await createCampaign(t, setup, { name: 'Approve me' })).json<{ id: number }>().id
      const rejected = (await createCampaign(t, setup, { name: 'Reject me' })).json<{ id: number }>().id
      const small = await campaignSetup(t, 3)
      const direct = (await createCampaign(t, small)).json<{ id: number }>().id
      const d = dispatcher(t, captureChannel())
      await d.drain()
      assert.equal(await campaignStatus(t, setup, approved), 1)
      assert.equal(await campaignStatus(t, setup, rejected), 1)
      assert.equal(await campaignStatus(t, small, direct), 3, 'fewer than 20 recipients need no moderation')

      const pending = (await tidings('campaigns', 'pending')) as { id: number; recipients: number }[]
      assert.deepEqual(pending.map((c) => [c.id, c.recipients]), [[approved, 20], [rejected, 20]])
      const paid = await balance()
      assert.deepEqual(await tidings('campaigns', 'approve', String(approved)), { id: approved, status: 2 })
      assert.deepEqual(await tidings('campaigns', 'reject', String(rejected)), { id: rejected, status: 5 })
      await d.drain()
      assert.equal(await campaignStatus(t, setup, approved), 3)
      assert.equal(await campaignStatus(t, setup, rejected), 5)
      const statuses = await t.deps.db.selectFrom('messages').select('status').where('campaign_id', '=', rejected).execute()
      assert.deepEqual([...new Set(statuses.map((s) => s.status))], [13], 'nothing of the rejected campaign was sent')
      assert.equal(Math.round(((await balance()) - paid) * 1e4), 20 * 44, 'the rejected campaign is paid back')
      await assert.rejects(tidings('campaigns', 'approve', String(rejected)), /not waiting for moderation/)
    })
  })
}
