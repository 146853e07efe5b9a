// What a campaign costs (API.md 2.3): written off at creation for the list as it is then, topped up when the
// copy of recipients ends with more than that (a dynamic list that grew before sending, contacts added while
// the copy was queued), and never more than the balance holds: recipients not paid for are not sent, not
// charged, and counted in skipped_email_qty. Every change of money is a ledger entry.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, campaignStatus, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { insertContacts } from '../../helpers/factories.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import type { EmailChannel } from '../../../src/delivery/channel.js'
import { creditAccount } from '../../../src/services/accounts/accounts.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

const HOUR = 3_600_000

for (const dialect of DIALECTS) {
  describe(`campaign charges on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let channel: EmailChannel

    /** The campaign's ledger entries by kind, in micro-units. */
    const ledgerOf = async (setup: CampaignSetup, id: number) => {
      const rows = await t.deps.db.selectFrom('ledger_entries').select(['kind', 'amount_micros']).where('account_id', '=', setup.account.id).where('note', '=', `campaign ${id}`).execute()
      const sum = (kind: string) => rows.filter((r) => r.kind === kind).reduce((total, r) => total + Number(r.amount_micros), 0)
      return { writtenOff: 0 - sum('write_off'), refunded: sum('refund'), entries: rows.length }
    }
    const balanceOf = async (setup: CampaignSetup) => (await t.call(setup.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
    const addContacts = async (setup: CampaignSetup, emails: string[]) => {
      const added = await t.call(setup.account, { method: 'POST', url: `/addressbooks/${setup.bookId}/emails`, payload: { emails } })
      assert.equal(added.statusCode, 200, added.body)
    }
    const sentCount = async (id: number) => Number((await t.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', id).where('sent_at', 'is not', null).executeTakeFirstOrThrow()).n)

    before(async () => {
      // 10 USD an email: the 100 USD every test account starts with pays for 10.
      t = await startTestApp(dialect, { emailPrice: 10, campaignsPerHour: 1000 })
      sink = await startSmtpSink()
      channel = smtpChannel({ url: sink.url })
    })
    after(async () => {
      await channel.close()
      await sink.close()
      await t.close()
    })

    it('charges a dynamic list for the contacts it gained before sending: paid = sent + refunded', async () => {
      const setup = await campaignSetup(t, 2)
      const created = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + HOUR), use_dynamic_list: true })).json<{ id: number; count: number }>()
      assert.equal(created.count, 2)
      assert.equal(await balanceOf(setup), 80, 'two recipients written off at creation')
      await addContacts(setup, ['grown1@example.com', 'grown2@example.com', 'grown3@example.com', 'grown4@example.com', 'grown5@example.com'])
      await t.call(setup.account, { method: 'POST', url: `/addressbooks/${setup.bookId}/emails/unsubscribe`, payload: { emails: [setup.emails[0]] } })
      t.clock.advance(HOUR)
      const d = dispatcher(t, captureChannel(), { batchSize: 2 })
      await d.jobs.runDue()
      assert.deepEqual(await ledgerOf(setup, created.id), { writtenOff: 60_000_000, refunded: 0, entries: 2 }, 'five joiners and the one original still subscribed: four more')
      assert.equal(await balanceOf(setup), 40)
      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.id}` })).json<{ all_email_qty: number; tariff_email_qty: number; company_price: string; skipped_email_qty: number }>()
      assert.deepEqual([detail.all_email_qty, detail.tariff_email_qty, detail.company_price, detail.skipped_email_qty], [6, 6, '60.00', 1])

      // Canceled after one batch of two: the four never sent are given back.
      assert.equal(await d.sender.sendDue(), 2)
      assert.equal((await t.call(setup.account, { method: 'DELETE', url: `/campaigns/${created.id}` })).statusCode, 200)
      await d.drain()
      const ledger = await ledgerOf(setup, created.id)
      assert.deepEqual(ledger, { writtenOff: 60_000_000, refunded: 40_000_000, entries: 3 })
      assert.equal(ledger.writtenOff, (await sentCount(created.id)) * 10_000_000 + ledger.refunded)
      assert.equal(await balanceOf(setup), 80)
    })

    it('charges contacts added to an ordinary list while its copy waited in the queue', async () => {
      const setup = await campaignSetup(t, 3)
      const created = (await createCampaign(t, setup)).json<{ id: number }>()
      await addContacts(setup, ['quick1@example.com', 'quick2@example.com'])
      await dispatcher(t, captureChannel()).drain()
      assert.equal(await sentCount(created.id), 5)
      assert.deepEqual(await ledgerOf(setup, created.id), { writtenOff: 50_000_000, refunded: 0, entries: 2 })
      assert.equal(await balanceOf(setup), 50)
    })

    it('sends only as many as the balance paid for, reports the rest skipped, and never goes below zero', async () => {
      const setup = await campaignSetup(t, 1)
      await creditAccount(t.deps, setup.account.id, '-5')
      const created = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + HOUR), use_dynamic_list: true })).json<{ id: number }>()
      assert.equal(await balanceOf(setup), 85)
      const joiners = Array.from({ length: 14 }, (_, i) => `joiner${i}.a${setup.account.id}@example.com`)
      await addContacts(setup, joiners)
      t.clock.advance(HOUR)
      await dispatcher(t, channel).drain()

      // 85 USD pay for 8 more at 10 USD: 9 of the 15 recipients are sent, the 5 USD left stay on the balance.
      assert.equal(await campaignStatus(t, setup, created.id), 3)
      const delivered = sink.received.map((r) => r.envelopeTo[0]).filter((to) => to !== undefined && [setup.emails[0]!, ...joiners].includes(to))
      assert.deepEqual(delivered.sort(), [setup.emails[0]!, ...joiners.slice(0, 8)].sort(), 'the first 9 copied reached the relay, nobody else')
      assert.equal(await balanceOf(setup), 5)
      assert.deepEqual(await ledgerOf(setup, created.id), { writtenOff: 90_000_000, refunded: 0, entries: 2 })
      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.id}` })).json<{ all_email_qty: number; tariff_email_qty: number; skipped_email_qty: number; statistics: { general: unknown[] } }>()
      assert.deepEqual([detail.all_email_qty, detail.tariff_email_qty, detail.skipped_email_qty], [9, 9, 6])
      assert.deepEqual(detail.statistics.general, [{ code: 2, count: 9, explain: 'Delivered' }])
      const skipped = await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.id}/email/${joiners[13]}` })
      assert.equal(skipped.statusCode, 404, 'left out of the campaign, like an unsubscribed contact')

      // Nothing at all paid for: nobody is sent (12: no recipient), and the balance stays where it was.
      const poor = await campaignSetup(t, 0)
      const gone = (await t.call(poor.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
      const empty = (await createCampaign(t, poor, { send_date: toWireDate(t.clock.now + HOUR), use_dynamic_list: true })).json<{ id: number }>()
      await creditAccount(t.deps, poor.account.id, `-${gone}`)
      await addContacts(poor, ['late1@example.com', 'late2@example.com'])
      t.clock.advance(HOUR)
      await dispatcher(t, channel).drain()
      assert.equal(await sentCount(empty.id), 0)
      assert.equal(await balanceOf(poor), 0)
      assert.deepEqual(await ledgerOf(poor, empty.id), { writtenOff: 0, refunded: 0, entries: 0 })
      const none = (await t.call(poor.account, { method: 'GET', url: `/campaigns/${empty.id}` })).json<{ status: number; skipped_email_qty: number }>()
      assert.deepEqual([none.status, none.skipped_email_qty], [12, 2])
    })

    it('pays for each copied batch before it commits, so no unpaid message is ever sendable, and stops copying when the balance is spent', async () => {
      // Recipients are copied 5000 a transaction, and each batch may be sent as soon as it commits.
      const setup = await campaignSetup(t, 1)
      const created = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + HOUR), use_dynamic_list: true })).json<{ id: number }>()
      const joiners = Array.from({ length: 5100 }, (_, i) => ({ accountId: setup.account.id, bookId: setup.bookId, email: `bulk${i}.a${setup.account.id}@example.com`, status: 1 }))
      await insertContacts(t.deps, joiners)
      t.clock.advance(HOUR)
      const d = dispatcher(t, captureChannel())
      assert.equal(await d.jobs.runDue(), 1, 'the first batch')
      const sendable = await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', created.id).where('queued', '=', 1).execute()
      assert.equal(sendable.length, 10, '100 USD pay for 10 recipients; none of the 4990 others can be claimed')
      assert.equal(await campaignStatus(t, setup, created.id), 2, 'the copy ended with the money')
      assert.equal(await d.jobs.runDue(), 0, 'no further batch was queued')
      await d.drain()
      assert.equal(await sentCount(created.id), 10)
      assert.equal(await balanceOf(setup), 0)
      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.id}` })).json<{ status: number; all_email_qty: number; skipped_email_qty: number }>()
      assert.deepEqual([detail.status, detail.all_email_qty, detail.skipped_email_qty], [3, 10, 5091])
    })

    it('copies once when an edit moved a dynamic list\'s sending time earlier, so the copy counts, and charges, every recipient', async () => {
      const setup = await campaignSetup(t, 1)
      await creditAccount(t.deps, setup.account.id, '60000')
      const created = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + 2 * HOUR), use_dynamic_list: true })).json<{ id: number }>()
      const moved = await t.call(setup.account, { method: 'PATCH', url: `/campaigns/${created.id}`, payload: { send_date: toWireDate(t.clock.now + HOUR) } })
      assert.equal(moved.statusCode, 200, moved.body)
      await insertContacts(t.deps, Array.from({ length: 5100 }, (_, i) => ({ accountId: setup.account.id, bookId: setup.bookId, email: `early${i}.a${setup.account.id}@example.com`, status: 1 })))
      const d = dispatcher(t, captureChannel())
      t.clock.advance(HOUR)
      assert.equal(await d.jobs.runDue(), 1, 'the first 5000 copied at the new time')
      // The copy's next step is retried later than the old time (as after a failed attempt's backoff).
      const nextStep = await t.deps.db.updateTable('jobs').set({ run_at: t.clock.now + 2 * HOUR }).where('status', '=', 'queued').where('payload', 'like', `{"campaignId":${created.id},"listIndex":0,"afterId":%,"copied":5000}`).executeTakeFirst()
      assert.equal(Number(nextStep.numUpdatedRows), 1)
      t.clock.advance(HOUR)
      while ((await d.jobs.runDue()) > 0);
      t.clock.advance(HOUR)
      while ((await d.jobs.runDue()) > 0);
      const messages = await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', created.id).execute()
      assert.equal(messages.length, 5101)
      assert.deepEqual(await ledgerOf(setup, created.id), { writtenOff: 5101 * 10_000_000, refunded: 0, entries: 3 })
    })
  })
}
