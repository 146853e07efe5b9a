// Disabling or deleting an account stops its sending: campaigns that may still send are canceled and paid
// back, drafts stay, and the dispatcher sends nothing more of it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import * as lifecycle from '../../../src/services/accounts/account-lifecycle.js'
import * as campaignsRepo from '../../../src/storage/repos/campaigns.js'
import * as accountsRepo from '../../../src/storage/repos/accounts.js'
import { getBalance } from '../../../src/services/accounts/balance.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

const HOUR = 3_600_000

for (const dialect of DIALECTS) {
  describe(`a disabled account's campaigns on ${dialect}`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp(dialect, { emailPrice: 1, campaignsPerHour: 1000 })
    })
    after(() => t.close())

    const statusOf = async (id: number) => (await campaignsRepo.findCampaignById(t.deps.db, id))!.status
    const create = async (setup: CampaignSetup, fields: Record<string, unknown>) => {
      const created = await createCampaign(t, setup, fields)
      assert.equal(created.statusCode, 200, created.body)
      return created.json<{ id: number }>().id
    }

    for (const end of ['disableAccount', 'deleteAccount'] as const) {
      it(`${end} cancels its scheduled and sending campaigns, pays them back and sends nothing more; drafts stay`, async () => {
        const setup = await campaignSetup(t, 3)
        const before = (await getBalance(t.deps, setup.account.id)).micros
        const scheduled = await create(setup, { send_date: toWireDate(t.clock.now + HOUR) })
        const now = await create(setup, {})
        const draft = await create(setup, { type: 'draft' })
        const d = dispatcher(t, captureChannel(), { batchSize: 50 })
        await d.jobs.runDue() // copies the recipients of the one due now: it is sending
        assert.equal(await statusOf(now), campaignsRepo.CAMPAIGN_STATUS.sending)

        await lifecycle[end](t.deps, setup.account.id)

        assert.equal(await statusOf(scheduled), campaignsRepo.CAMPAIGN_STATUS.canceled)
        assert.equal(await statusOf(now), campaignsRepo.CAMPAIGN_STATUS.canceled)
        assert.equal(await statusOf(draft), campaignsRepo.CAMPAIGN_STATUS.draft)
        t.clock.advance(2 * HOUR)
        assert.equal(await d.drain(), 0, 'nothing of the account is sent')
        assert.equal((await getBalance(t.deps, setup.account.id)).micros, before, 'what was not sent is given back')
      })

      it(`${end} of an account already deleted still cancels its campaigns (a delete whose cancel failed is run again)`, async () => {
        const setup = await campaignSetup(t, 2)
        const before = (await getBalance(t.deps, setup.account.id)).micros
        const scheduled = await create(setup, { send_date: toWireDate(t.clock.now + HOUR) })
        // What a delete leaves when the cancel fails after its revoking transaction committed.
        assert.ok(await accountsRepo.markAccountDeleted(t.deps.db, setup.account.id, t.clock.now))

        assert.equal(await lifecycle[end](t.deps, setup.account.id), 'already_deleted')
        assert.equal(await statusOf(scheduled), campaignsRepo.CAMPAIGN_STATUS.canceled)
        assert.equal((await getBalance(t.deps, setup.account.id)).micros, before, 'what was not sent is given back')
        assert.equal(await lifecycle[end](t.deps, setup.account.id), 'already_deleted', 'and again: nothing left to cancel')
        await assert.rejects(lifecycle[end](t.deps, 999_999), /account 999999 not found/)
      })
    }

    it('deleteAccount answers ended the first time and already_deleted after', async () => {
      const account = await t.account()
      assert.equal(await lifecycle.deleteAccount(t.deps, account.id), 'ended')
      assert.equal(await lifecycle.deleteAccount(t.deps, account.id), 'already_deleted')
      assert.equal(await lifecycle.disableAccount(t.deps, (await t.account()).id), 'ended')
    })
  })
}
