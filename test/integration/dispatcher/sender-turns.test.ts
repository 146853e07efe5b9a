// The campaign sender lets the event loop turn between the steps of a batch (claim, render and send, record). On
// SQLite nothing in a batch waits for the network, so without those turns a request (an open pixel, an API call)
// read meanwhile waited for whole batches of the sender's two in flight (docs/benchmarks.md, "Scale of work").
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'

for (const dialect of DIALECTS) {
  describe(`the campaign sender's turns of the event loop on ${dialect}`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
    })
    after(() => t.close())

    it('lets other work run between claiming, sending and recording a batch', async () => {
      const setup = await campaignSetup(t, 3)
      const created = await createCampaign(t, setup)
      assert.equal(created.statusCode, 200, created.body)
      const { jobs, sender } = dispatcher(t, captureChannel())
      await jobs.runDue()
      // Counts the turns of the event loop (each runs the immediates queued before it) while the batch is sent.
      let sending = true
      let turns = 0
      const count = () => {
        if (!sending) return
        turns++
        setImmediate(count)
      }
      setImmediate(count)
      const claimed = await sender.sendDue()
      sending = false
      assert.equal(claimed, 3)
      assert.ok(turns >= 2, `the event loop turned ${turns} times while a batch was sent`)
    })
  })
}
