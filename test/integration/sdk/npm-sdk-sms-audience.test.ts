// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, with the numbers of a list and the SMS blacklist: it
// sends `phones` and `variables` as JSON strings, GET parameters as a JSON body, and the number in the path.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'

for (const dialect of DIALECTS) {
  describe(`the npm SDK's SMS numbers and blacklist methods on ${dialect}`, () => {
    let h: SdkHarness
    let bookId: number
    const now = () => new Date(h.testApp.clock.now).toISOString().slice(0, 19).replace('T', ' ')

    before(async () => {
      h = await startSdkHarness(dialect)
      await h.init()
      bookId = (await call<{ id: number }>(h.sdk.createAddressBook, 'SDK numbers')).id
      h.exchanges.length = 0
    })
    after(() => h?.close())

    it('adds numbers with smsAddPhones and smsAddPhonesWithVariables, reads one with smsGetPhoneInfo', async () => {
      assert.deepEqual(await call(h.sdk.smsAddPhones, bookId, ['380631234567', '+380631234568', 'bad']), { result: true, counters: { added: 2, exceptions: 1, exists: 0 } })
      const withVariables = await call(h.sdk.smsAddPhonesWithVariables, bookId, {
        '380631234567': [[{ name: 'city', type: 'string', value: 'Kyiv' }]],
        '447911123456': [[{ name: 'city', type: 'string', value: 'London' }, { name: 'since', type: 'date', value: '2018-10-10 23:00:00' }]],
      })
      assert.deepEqual(withVariables, { result: true, counters: { added: 1, exceptions: 0, exists: 1 } })
      assert.deepEqual(await call(h.sdk.smsGetPhoneInfo, bookId, '447911123456'), { result: true, data: { status: 1, variables: { city: 'London', since: '2018-10-10' }, added: now() } })
      assert.deepEqual(await call(h.sdk.smsGetPhoneInfo, bookId, '+380631234568'), { result: true, data: { status: 1, variables: {}, added: now() } })
      assert.deepEqual(h.paths(), [
        'POST /sms/numbers 200',
        'POST /sms/numbers/variables 200',
        `GET /sms/numbers/info/${bookId}/447911123456 200`,
        `GET /sms/numbers/info/${bookId}/+380631234568 200`,
      ])
    })

    it('changes variables with smsUpdatePhonesVariables and removes numbers with smsRemovePhones', async () => {
      const updated = await call(h.sdk.smsUpdatePhonesVariables, bookId, ['380631234567', '380631234568'], [{ name: 'tier', type: 'string', value: 'gold' }])
      assert.deepEqual(updated, { result: true, counters: { updated: 2 } })
      assert.deepEqual(((await call<{ data: { variables: unknown } }>(h.sdk.smsGetPhoneInfo, bookId, '380631234567')).data.variables), { city: 'Kyiv', tier: 'gold' })
      assert.deepEqual(await call(h.sdk.smsRemovePhones, bookId, ['380631234568', '380501234567']), { result: true, counters: { deleted: 1 } })
      const gone = await call<{ error_code: number }>(h.sdk.smsGetPhoneInfo, bookId, '380631234568')
      assert.equal(gone.error_code, 404)
    })

    it('blacklists with smsAddPhonesToBlacklist, reads with smsGetBlackList and smsGetPhonesInfoFromBlacklist, removes with smsDeletePhonesFromBlacklist', async () => {
      assert.deepEqual(await call(h.sdk.smsGetBlackList), { result: true, data: [] })
      assert.deepEqual(await call(h.sdk.smsAddPhonesToBlacklist, ['380631234567', '447911123456'], 'stop'), { result: true, counters: { added: 2, exists: 0, exceptions: 0 } })
      assert.deepEqual(await call(h.sdk.smsAddPhonesToBlacklist, ['380631234567']), { result: true, counters: { added: 0, exists: 1, exceptions: 0 } }, 'no comment: optional')
      const entry = (phone: number) => ({ phone, description: 'stop', add_date: now() })
      assert.deepEqual(await call(h.sdk.smsGetBlackList), { result: true, data: [entry(380631234567), entry(447911123456)] })
      assert.deepEqual(await call(h.sdk.smsGetPhonesInfoFromBlacklist, ['447911123456', '380501234567']), { result: true, data: [entry(447911123456)] })
      const [book] = await call<Record<string, number>[]>(h.sdk.getBookInfo, bookId)
      assert.deepEqual([book?.active_phones_quantity, book?.exc_phones_quantity], [0, 2], 'both numbers of the list are blacklisted')
      assert.deepEqual(await call(h.sdk.smsDeletePhonesFromBlacklist, ['380631234567']), { result: true, counters: { removed: 1 } })
      assert.deepEqual(await call(h.sdk.smsGetBlackList), { result: true, data: [entry(447911123456)] })
    })
  })
}
