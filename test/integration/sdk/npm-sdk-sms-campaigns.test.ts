// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, with SMS campaigns: smsAddCampaign, smsSend,
// smsGetListCampaigns, smsGetCampaignInfo, smsCancelCampaign, smsGetCampaignCost and smsDeleteCampaign, each
// answer as its callback gets it, and what each call did read back from the database.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'
import { balanceMicros, smsCampaignInfo, smsDispatcher, waitFor } from '../../helpers/sms.js'
import { moderateSmsSender, registerSmsSender } from '../../../src/services/sms/senders.js'
import { captureSmsChannel } from '../../../src/delivery/sms/capture.js'
import { CAMPAIGN_STATUS } from '../../../src/storage/repos/campaigns.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

const PRICES = 'default=0.02,UA=0.015,UA:international=0.03'
const HOUR = 3_600_000
const [ANN, BOB] = ['380631234567', '380631234568']
const GB = '447400123456'

interface NumberInfo {
  phone: number
  status: number
  money_spent: number
}

for (const dialect of DIALECTS) {
  describe(`the npm SDK's SMS campaign methods on ${dialect}`, () => {
    let h: SdkHarness
    let bookId: number
    const wire = (at: number) => toWireDate(at)
    const campaignRow = (id: number) => h.testApp.deps.db.selectFrom('campaigns').select(['status', 'channel', 'charged_micros', 'send_at']).where('id', '=', id).executeTakeFirst()
    const balance = () => balanceMicros(h.testApp, h.account)

    before(async () => {
      h = await startSdkHarness(dialect, { smsPrices: PRICES })
      await moderateSmsSender(h.testApp.deps, await registerSmsSender(h.testApp.deps, h.account.id, 'Shop'), 'approve')
      await h.init()
      bookId = (await call<{ id: number }>(h.sdk.createAddressBook, 'SDK SMS')).id
      await call(h.sdk.smsAddPhonesWithVariables, bookId, { [ANN]: [[{ name: 'name', type: 'string', value: 'Ann' }]], [BOB]: [[{ name: 'name', type: 'string', value: 'Bob' }]] })
    })
    // The harness stops an SDK that asks more than 20 times: each test counts its own requests.
    beforeEach(() => void (h.exchanges.length = 0))
    after(() => h?.close())

    it('prices with smsGetCampaignCost: numbers with a null or 0 list, the list when both are given', async () => {
      // The SDK wants a list argument even for numbers: null or 0 stand for none.
      assert.deepEqual(await call(h.sdk.smsGetCampaignCost, 'Shop', 'Hi {{name}}', null, [GB]), { result: true, data: { price: 0.02, currency: 'USD' } })
      assert.deepEqual(await call(h.sdk.smsGetCampaignCost, 'Shop', 'Hi {{name}}', 0, [GB, ANN]), { result: true, data: { price: 0.035, currency: 'USD' } })
      assert.deepEqual(await call(h.sdk.smsGetCampaignCost, 'Shop', 'Hi {{name}}', bookId, [GB]), { result: true, data: { price: 0.03, currency: 'USD' } }, 'the two numbers of the list')
      assert.deepEqual(h.paths(), ['GET /sms/campaigns/cost 200', 'GET /sms/campaigns/cost 200', 'GET /sms/campaigns/cost 200'])
    })

    it('creates a scheduled list campaign with smsAddCampaign, reads it with smsGetCampaignInfo, cancels it with smsCancelCampaign', async () => {
      const before = await balance()
      const sendAt = Math.floor(h.testApp.clock.now / 1000) * 1000 + HOUR
      const created = await call<{ result: boolean; campaign_id: number }>(h.sdk.smsAddCampaign, 'Shop', bookId, 'Hi {{name}}', wire(sendAt))
      assert.deepEqual(Object.keys(created).sort(), ['campaign_id', 'result'])
      assert.equal(created.result, true)
      const id = created.campaign_id
      assert.ok(Number.isInteger(id))
      const row = await campaignRow(id)
      assert.deepEqual(row && { ...row, charged_micros: Number(row.charged_micros), send_at: Number(row.send_at) }, {
        status: CAMPAIGN_STATUS.sending,
        channel: 'sms',
        charged_micros: 30_000,
        send_at: sendAt,
      })
      assert.equal(before - (await balance()), 30_000, 'two Ukrainian numbers written off')

      const info = await call<{ result: boolean; data: Record<string, unknown> & { task_phones_info: Record<string, unknown>[] } }>(h.sdk.smsGetCampaignInfo, id)
      assert.equal(info.result, true)
      assert.deepEqual({ ...info.data, date_created: typeof info.data.date_created, task_phones_info: undefined }, {
        id,
        address_book_id: bookId,
        currency: 'USD',
        company_price: 0.03,
        send_date: wire(sendAt),
        date_created: 'string',
        sender_name: 'Shop',
        task_phones_info: undefined,
      })
      const number = (phone: string) => ({ phone: Number(phone), status: 0, status_explain: 'Ready to send', сountry_code: 'UA', country_code: 'UA', money_spent: 0.015 })
      assert.deepEqual(info.data.task_phones_info, [number(ANN), number(BOB)])

      assert.deepEqual(await call(h.sdk.smsCancelCampaign, id), { result: true })
      assert.equal((await campaignRow(id))!.status, CAMPAIGN_STATUS.canceled)
      assert.equal(await balance(), before, 'paid back')
      const canceled = await call<{ data: { task_phones_info: NumberInfo[] } }>(h.sdk.smsGetCampaignInfo, id)
      assert.deepEqual(canceled.data.task_phones_info.map((n) => [n.status, n.money_spent]), [[12, 0], [12, 0]])
      assert.deepEqual(h.paths(), ['POST /sms/campaigns 200', `GET /sms/campaigns/info/${id} 200`, `PUT /sms/campaigns/cancel/${id} 200`, `GET /sms/campaigns/info/${id} 200`])
    })

    it('sends to numbers with smsSend (transliterated, routed), lists with smsGetListCampaigns, deletes with smsDeleteCampaign', async () => {
      const from = wire(h.testApp.clock.now - 1000)
      const before = await balance()
      // 72 Cyrillic characters: one part transliterated; the international route of UA costs 0.03.
      const sent = await call<{ result: boolean; campaign_id: number; counters: unknown }>(h.sdk.smsSend, 'Shop', [ANN, `+${GB}`, 'nope'], 'Привіт'.repeat(12), undefined, 1, { UA: 'international' })
      assert.deepEqual({ ...sent, campaign_id: typeof sent.campaign_id }, { result: true, campaign_id: 'number', counters: { exceptions: 1, sends: 2 } })
      const id = sent.campaign_id
      assert.equal(before - (await balance()), 50_000, '0.03 for the Ukrainian number, 0.02 for the British one')
      const messages = await h.testApp.deps.db.selectFrom('messages').select(['address', 'parts']).where('campaign_id', '=', id).orderBy('address').execute()
      assert.deepEqual(messages.map((m) => [m.address, Number(m.parts)]), [[ANN, 1], [GB, 1]])

      const channel = captureSmsChannel({ receiptDelayMs: 5 })
      try {
        assert.equal(await smsDispatcher(h.testApp, channel).drain(), 2)
        await waitFor(async () => (await smsCampaignInfo(h.testApp, h.account, id)).task_phones_info.every((n) => n.status === 2))
        const delivered = await call<{ data: { task_phones_info: NumberInfo[] } }>(h.sdk.smsGetCampaignInfo, id)
        assert.deepEqual(delivered.data.task_phones_info.map((n) => [n.phone, n.status, n.money_spent]), [[Number(ANN), 2, 0.03], [Number(GB), 2, 0.02]])
      } finally {
        await channel.close()
      }

      const listed = await call<{ result: boolean; data: Record<string, unknown>[] }>(h.sdk.smsGetListCampaigns, from, wire(h.testApp.clock.now + 1000))
      assert.equal(listed.result, true)
      const row = listed.data.find((c) => c.id === id)
      assert.deepEqual({ ...row, send_date: typeof row?.send_date, date_created: typeof row?.date_created }, {
        id,
        address_book_id: 0,
        company_price: 0.05,
        company_currency: 'USD',
        send_date: 'string',
        date_created: 'string',
        sender_name: 'Shop',
        sender_mail_address: '',
        sender_mail_name: '',
      })
      const none = await call<{ result: boolean; data: unknown[] }>(h.sdk.smsGetListCampaigns, wire(h.testApp.clock.now + HOUR), wire(h.testApp.clock.now + 2 * HOUR))
      assert.deepEqual(none, { result: true, data: [] })

      assert.deepEqual(await call(h.sdk.smsDeleteCampaign, id), { result: true })
      assert.equal(await campaignRow(id), undefined, 'gone from the database')
      const gone = await call<{ error_code: number }>(h.sdk.smsGetCampaignInfo, id)
      assert.equal(gone.error_code, 404)
      assert.equal(before - (await balance()), 50_000, 'a campaign sent stays paid after its deletion')
      assert.ok(h.paths().every((p) => !/ 5\d\d$/.test(p)), h.paths().join('\n'))
    })
  })
}
