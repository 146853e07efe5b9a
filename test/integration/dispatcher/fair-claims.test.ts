// Claims take accounts in turn (issue 20, item 3; docs/decisions/0007): an account's campaign of 100,000 does not
// hold back another account's campaign of 10 created after it. Before, the claim took due messages in (due time,
// id) order, so the 10 waited for all 100,000.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { upsertContacts } from '../../../src/storage/repos/contact-upserts.js'
import { CONTACT_STATUS } from '../../../src/storage/repos/contacts.js'

const BIG = 100_000
const SMALL = 10
/** Batches of 50: B's 10 must go within the first few, while A has sent a small part of its 100,000. */
const ROUNDS = 6

for (const dialect of DIALECTS) {
  describe(`claims that take accounts in turn on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { emailPrice: 0 })
    })
    after(() => t.close())

    it("sends a small campaign of one account while another account's big one is under way", async () => {
      const big = await campaignSetup(t, 1)
      // The list is filled through the bulk path of the API's imports (10,000 a statement), not 200 API calls.
      for (let i = 0; i < BIG; i += 10_000) {
        const emails = Array.from({ length: 10_000 }, (_, j) => `bulk${i + j}@big.example`)
        const variables = emails.map((_, j) => JSON.stringify({ name: `Reader ${i + j}` }))
        const phones = emails.map(() => null)
        await upsertContacts(t.deps.db, { accountId: big.account.id, bookId: big.bookId, status: CONTACT_STATUS.active, source: 'import', now: t.clock.now, contacts: { emails, phones, variables } })
      }
      const bigCampaign = await createCampaign(t, big)
      assert.equal(bigCampaign.statusCode, 200, bigCampaign.body)
      t.clock.advance(1000)
      const small = await campaignSetup(t, SMALL)
      const smallCampaign = await createCampaign(t, small)
      assert.equal(smallCampaign.statusCode, 200, smallCampaign.body)
      const { jobs, sender } = dispatcher(t, captureChannel())
      while ((await jobs.runDue()) > 0);
      const sentOf = async (campaign: { json<T>(): T }) => {
        const id = campaign.json<{ id: number }>().id
        const row = await t.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', id).where('queued', '=', 0).executeTakeFirstOrThrow()
        return Number(row.n)
      }
      const queued = await t.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('queued', '=', 1).executeTakeFirstOrThrow()
      assert.equal(Number(queued.n), BIG + 1 + SMALL, 'both campaigns are queued whole before sending starts')

      for (let round = 0; round < ROUNDS && (await sentOf(smallCampaign)) < SMALL; round++) await sender.sendDue()
      assert.equal(await sentOf(smallCampaign), SMALL, `the small campaign is sent within ${ROUNDS} batches`)
      const bigSent = await sentOf(bigCampaign)
      assert.ok(bigSent > 0 && bigSent <= ROUNDS * 50, `the big campaign sent ${bigSent} meanwhile`)
    })
  })
}
