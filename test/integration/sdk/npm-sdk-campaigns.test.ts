// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, drives campaigns and templates against a listening
// server: create (its Base64 body, empty name and empty attachments), list, info, statistics, cancel, cost.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'
import { activeSender } from '../../helpers/senders.js'
import { dispatcher } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'

for (const dialect of DIALECTS) {
  describe(`the npm SDK's campaign and template methods against the server on ${dialect}`, () => {
    let harness: SdkHarness
    let bookId: number
    before(async () => {
      harness = await startSdkHarness(dialect, { campaignsPerHour: 100 })
      await harness.init()
      await activeSender(harness.testApp, harness.account, 'sdk@sender.example', 'SDK')
      bookId = (await call<{ id: number }>(harness.sdk.createAddressBook, 'SDK readers')).id
      await call(harness.sdk.addEmails, bookId, [{ email: 'ann@example.com', variables: { name: 'Ann' } }, { email: 'bob@example.com', variables: { name: 'Bob' } }])
    })
    after(async () => {
      await harness?.close()
    })

    it('creates a campaign, sends it, and reads it back through info, list, statistics and per-address calls', async () => {
      const { sdk } = harness
      const cost = await call<{ sent_emails_qty: number; cur: string }>(sdk.campaignCost, bookId)
      assert.equal(cost.sent_emails_qty, 2)
      const created = await call<{ id: number; status: number; count: number; overdraft_price: string; ovedraft_currency: string }>(
        sdk.createCampaign, 'SDK', 'sdk@sender.example', 'Hello {{name}}', '<p>Hi {{name}}, <a href="https://example.org/x">see</a></p>', bookId,
      )
      assert.equal(created.status, 13)
      assert.equal(created.count, 2)
      assert.equal(created.overdraft_price, '0.0044')
      assert.equal(created.ovedraft_currency, 'USD')
      await dispatcher(harness.testApp, captureChannel()).drain()

      const info = await call<{ id: number; status: number; name: string; message: { subject: string; list_id: number }; statistics: { general: { code: number; count: number }[] } }>(sdk.getCampaignInfo, created.id)
      assert.equal(info.status, 3)
      assert.equal(info.name, 'Hello {{name}}', 'the npm SDK sends name "" on every campaign: the subject names it')
      assert.equal(info.message.list_id, bookId)
      assert.deepEqual(info.statistics.general.map((g) => [g.code, g.count]), [[2, 2]])
      const list = await call<{ id: number }[]>(sdk.listCampaigns, 10, 0)
      assert.deepEqual(list.map((c) => c.id), [created.id])
      assert.deepEqual(await call(sdk.campaignStatByCountries, created.id), {})
      assert.deepEqual(await call(sdk.campaignStatByReferrals, created.id), [])
      const stats = await call<{ statistic: { sent: number } }>(sdk.emailStatByCampaigns, 'ann@example.com')
      assert.equal(stats.statistic.sent, 1)
    })

    it('cancels a campaign, and answers the errors as JSON the SDK hands to the caller', async () => {
      const { sdk } = harness
      const created = await call<{ id: number }>(sdk.createCampaign, 'SDK', 'sdk@sender.example', 'Later', '<p>x</p>', bookId, 'Cancel me')
      assert.deepEqual(await call(sdk.cancelCampaign, created.id), { result: true })
      const info = await call<{ status: number; name: string }>(sdk.getCampaignInfo, created.id)
      assert.deepEqual([info.status, info.name], [16, 'Cancel me'])
      const refused = await call<{ error_code: number; message: string }>(sdk.createCampaign, 'SDK', 'nobody@sender.example', 'x', '<p>x</p>', bookId)
      assert.equal(refused.error_code, 1003)
      const missing = await call<{ error_code: number; message: string }>(sdk.getCampaignInfo, 999999)
      assert.equal(missing.message, 'Campaign not found')
    })

    it('lists system templates and reads one by id', async () => {
      const { sdk } = harness
      const templates = await call<{ id: string; real_id: number; owner: string }[]>(sdk.listEmailTemplates)
      assert.ok(templates.length >= 3, `system templates: ${templates.length}`)
      const one = await call<{ real_id: number; body: string }>(sdk.getEmailTemplate, templates[0]!.real_id)
      assert.equal(one.real_id, templates[0]!.real_id)
      assert.ok(one.body.length > 100, 'the template body')
    })
  })
}
