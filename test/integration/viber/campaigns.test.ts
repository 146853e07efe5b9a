// Creating Viber campaigns (API.md 4.10.1, 8; COMPAT.md "SMS and Viber" 4, 5, 10, 11): every rule with a failing
// and a passing request (a failure stores nothing and takes no money), the Go SDK's requests, the answer's exact
// types, list and statistics shapes, POST /viber/update, the blacklist and tenant isolation; on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { balanceMicros } from '../../helpers/sms.js'
import { SYSTEM_TEXT, viberRecipients, viberSetup, viberStatistics, type ViberSetup } from '../../helpers/viber.js'
import { registerViberSender } from '../../../src/services/viber/senders.js'
import { registerViberTemplate } from '../../../src/services/viber/templates.js'

const PRICES = 'default=0.02,GB=0.01'
const numbers = (count: number, first = 447400100000) => Array.from({ length: count }, (_, i) => first + i)

for (const dialect of DIALECTS) {
  describe(`Viber campaigns on ${dialect}`, () => {
    let t: TestApp
    let a: ViberSetup
    let b: ViberSetup

    before(async () => {
      t = await startTestApp(dialect, { viberPrices: PRICES })
      a = await viberSetup(t)
      b = await viberSetup(t)
    })
    after(() => t.close())

    const create = (setup: ViberSetup, payload: Record<string, unknown>) =>
      t.call(setup.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Sale', message_type: 2, sender_id: setup.senderId, message_live_time: 3600, send_date: 'now', recipients: numbers(3), message: 'Sale today', ...payload },
      })
    const campaignCount = async () => Number((await t.deps.db.selectFrom('campaigns').select((eb) => eb.fn.countAll<number>().as('n')).where('channel', '=', 'viber').executeTakeFirstOrThrow()).n)

    it('refuses each broken rule with a 422 naming the field, storing nothing and taking no money', async () => {
      const moderated = await registerViberSender(t.deps, a.account.id, { name: 'Pending' })
      await registerViberTemplate(t.deps, a.account.id, 'Not approved yet')
      const long = 'x'.repeat(1001)
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ message_type: undefined }, /message_type is missing/],
        [{ message_type: 4 }, /message_type must be 2/],
        [{ sender_id: undefined }, /sender_id is missing/],
        [{ sender_id: 999_999 }, /sender_id/],
        [{ sender_id: moderated }, /sender_id.*moderation/],
        [{ sender_id: b.senderId }, /sender_id/],
        [{ message_live_time: 59 }, /message_live_time must be/],
        [{ message_live_time: 86_401 }, /message_live_time must be/],
        [{ message_live_time: undefined }, /message_live_time is missing/],
        [{ send_date: 'tomorrow' }, /send_date must be/],
        [{ recipients: undefined }, /address_book or recipients is missing/],
        [{ recipients: numbers(1001) }, /recipients may hold at most 1000/],
        [{ recipients: ['447400100000', 'not a number'] }, /recipients: "not a number" is not a phone number/],
        [{ message: long }, /message is too long/],
        [{ message: undefined }, /message is missing/],
        [{ stretch_time: 6 }, /stretch_time must be from 0 to 5/],
        [{ additional: { button: { text: 'Open' } } }, /button.link is missing/],
        [{ additional: { button: { text: 'Open', link: 'javascript:alert(1)' } } }, /button.link must be an http/],
        [{ additional: { image: { link: 'https://cdn.example/a.png' } } }, /a text with an image needs a button/],
        [{ message: undefined, additional: { image: { link: 'https://cdn.example/a.png' }, button: { text: 'Open', link: 'https://shop.example' } } }, /a button goes with a text/],
        [{ message_type: 3, message: SYSTEM_TEXT, additional: { button: { text: 'Open', link: 'https://shop.example' } } }, /system message.*text only/],
        [{ message_type: 3, message: 'Not approved yet' }, /approved template/],
        [{ additional: { resend_sms: { status: true, sms_sender_name: 'Shop' } } }, /resend_sms.sms_text is missing/],
        [{ additional: { resend_sms: { status: true, sms_text: 'Sale', sms_sender_name: 'Nobody' } } }, /Sender "Nobody" is not registered/],
      ]
      const before = await balanceMicros(t, a.account)
      const stored = await campaignCount()
      for (const [change, message] of cases) {
        const answer = await create(a, change)
        assert.equal(answer.statusCode, 422, `${JSON.stringify(change)}: ${answer.body}`)
        assert.match(answer.json<{ message: string }>().message, message, JSON.stringify(change))
        assert.equal(typeof answer.json<{ error_code: number }>().error_code, 'number')
      }
      const otherList = await t.call(b.account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'B list' } })
      const bookOfB = otherList.json<{ id: number }>().id
      assert.equal((await create(a, { recipients: undefined, address_book: bookOfB })).statusCode, 404)
      assert.equal(await campaignCount(), stored)
      assert.equal(await balanceMicros(t, a.account), before)
    })

    it('accepts each of the four message shapes, priced by country and paid at once', async () => {
      const before = await balanceMicros(t, a.account)
      const shapes = [
        { message_type: 3, message: SYSTEM_TEXT },
        { message: 'Sale', additional: { button: { text: 'Open', link: 'https://shop.example/sale' }, image: { link: 'https://cdn.example/a.png' } } },
        { message: 'Sale', additional: { button: { text: 'Open', link: 'https://shop.example/sale' } } },
        { message: undefined, additional: { image: { link: 'https://cdn.example/a.png' } } },
      ]
      for (const shape of shapes) {
        const answer = await create(a, { ...shape, recipients: [447400100000, '+380501234567'] })
        assert.equal(answer.statusCode, 200, answer.body)
      }
      // Four campaigns × (GB 0.01 + UA at the default 0.02).
      assert.equal(before - (await balanceMicros(t, a.account)), 4 * 30_000)
    })

    it('answers the create with the published types and reads it back in the list and the statistics', async () => {
      const answer = await create(a, {
        task_name: 'Typed',
        additional: { button: { text: 'Open', link: 'https://shop.example/x' }, resend_sms: { status: true, sms_text: 'Sale today', sms_sender_name: a.smsSender } },
        stretch_time: 1,
      })
      assert.equal(answer.statusCode, 200, answer.body)
      const { result, data } = answer.json<{ result: boolean; data: Record<string, unknown> }>()
      assert.equal(result, true)
      assert.deepEqual({ ...data, send_date: typeof data.send_date }, {
        address_book_id: null,
        button_link: 'https://shop.example/x',
        button_text: 'Open',
        image_link: null,
        message: 'Sale today',
        message_live_time: '3600',
        message_type: 2,
        resend_sms: 1,
        send_date: 'string',
        sender_id: a.senderId,
        sms_sender_name: a.smsSender,
        sms_text: 'Sale today',
        stretch_time: 1,
        task_id: data.task_id,
        task_name: 'Typed',
      })
      assert.match(String(data.send_date), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const id = data.task_id as number
      const list = await t.call(a.account, { method: 'GET', url: '/viber/task?limit=1&offset=0' })
      const [item] = list.json<Record<string, unknown>[]>()
      assert.equal(item!.id, id)
      assert.equal(item!.message_live_time, 3600)
      assert.equal(item!.address_book, null)
      assert.equal(item!.sender_name, 'Shop')
      assert.equal(item!.status, 'sending')
      const stats = await viberStatistics(t, a.account, id)
      assert.equal(stats.resend_sms, true)
      assert.equal(stats.resend_sms_status, 0)
      assert.deepEqual(stats.statistic, { sent: 0, delivered: 0, read: 0, redirected: 0, undelivered: 0, errors: 0 })
      const recipients = await viberRecipients(t, a.account, id)
      assert.deepEqual(recipients.map((r) => [r.phone, r.status, r.price, r.currency]), numbers(3).map((n) => [n, null, 0.01, 'USD']))
    })

    it('takes the Go SDK\'s request: sent_date zero, address_book 0 with recipients as ints, and its update', async () => {
      const answer = await t.call(a.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Go', message_type: 2, sender_id: a.senderId, message_live_time: 1000, sent_date: '0001-01-01 00:00:00', address_book: 0, recipients: numbers(2), message: 'Hi' },
      })
      assert.equal(answer.statusCode, 200, answer.body)
      const id = answer.json<{ data: { task_id: number } }>().data.task_id
      const update = await t.call(a.account, {
        method: 'POST',
        url: '/viber/update',
        payload: { main_task_id: id, task_name: 'Go 2', message: 'Hello again', message_type: 2, button_text: 'Go', button_link: 'https://shop.example/go', sender_id: a.senderId, message_live_time: 2000, sent_date: '2999-01-01 10:00:00' },
      })
      assert.equal(update.statusCode, 200, update.body)
      assert.equal(update.json<{ result: boolean }>().result, true)
      const [item] = (await t.call(a.account, { method: 'GET', url: '/viber/task' })).json<Record<string, unknown>[]>()
      assert.deepEqual([item!.name, item!.message, item!.button_text, item!.message_live_time, item!.send_date, item!.status], ['Go 2', 'Hello again', 'Go', 2000, '2999-01-01 10:00:00', 'scheduled'])
      assert.equal((await viberRecipients(t, a.account, id)).length, 2)
    })

    it('takes a PHP-style form body with the nested additional fields', async () => {
      const form = [
        'task_name=Form',
        'message_type=2',
        `sender_id=${a.senderId}`,
        'message_live_time=600',
        'send_date=now',
        'recipients[0]=447400100000',
        'recipients[1]=%2B447400100001',
        'message=Sale+today',
        'additional[button][text]=Open',
        'additional[button][link]=https%3A%2F%2Fshop.example%2Fform',
        'additional[resend_sms][status]=1',
        'additional[resend_sms][sms_text]=Sale',
        `additional[resend_sms][sms_sender_name]=${a.smsSender}`,
      ].join('&')
      const answer = await t.call(a.account, { method: 'POST', url: '/viber', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form })
      assert.equal(answer.statusCode, 200, answer.body)
      const { data } = answer.json<{ data: { task_id: number; button_link: string; resend_sms: number; message_live_time: string } }>()
      assert.deepEqual([data.button_link, data.resend_sms, data.message_live_time], ['https://shop.example/form', 1, '600'])
      assert.deepEqual((await viberRecipients(t, a.account, data.task_id)).map((r) => r.phone), [447400100000, 447400100001])
    })

    it('sends to a list\'s numbers less the Viber blacklist, and prices the update of its list', async () => {
      const book = (await t.call(a.account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Viber list' } })).json<{ id: number }>().id
      const phones = numbers(4, 447400200000)
      assert.equal((await t.call(a.account, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: book, phones } })).statusCode, 200)
      const black = await t.call(a.account, { method: 'POST', url: '/v2/viber-service/phone-exception', payload: { phones: [String(phones[0])] } })
      assert.equal(black.statusCode, 200, black.body)
      const answer = await create(a, { recipients: null, address_book: book, send_date: '2999-01-01 00:00:00' })
      assert.equal(answer.statusCode, 200, answer.body)
      const id = answer.json<{ data: { task_id: number; address_book_id: number } }>().data.task_id
      assert.deepEqual((await viberRecipients(t, a.account, id)).map((r) => [r.phone, r.address_book_id]), phones.slice(1).map((p) => [p, book]))
      // Typed-in numbers skip the blacklist too.
      const typed = await create(a, { recipients: phones.slice(0, 2) })
      assert.deepEqual((await viberRecipients(t, a.account, typed.json<{ data: { task_id: number } }>().data.task_id)).map((r) => r.phone), [phones[1]])
      // A smaller list on update: the difference comes back.
      const small = (await t.call(a.account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Small' } })).json<{ id: number }>().id
      await t.call(a.account, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: small, phones: [447400300000] } })
      const balance = await balanceMicros(t, a.account)
      const update = await t.call(a.account, { method: 'POST', url: '/viber/update', payload: { main_task_id: id, address_book: small } })
      assert.equal(update.statusCode, 200, update.body)
      assert.equal((await balanceMicros(t, a.account)) - balance, 2 * 10_000)
      assert.deepEqual((await viberRecipients(t, a.account, id)).map((r) => r.phone), [447400300000])
    })

    it('answers a callback with 404 when no Viber provider is configured (capture), changing nothing', async () => {
      const answer = await t.app.inject({ method: 'POST', url: '/viber/callbacks/vonage', headers: { 'content-type': 'application/json', authorization: 'Bearer a.b.c' }, payload: '{"client_ref":"1","status":"delivered"}' })
      assert.equal(answer.statusCode, 404)
      assert.equal(typeof answer.json<{ error_code: number }>().error_code, 'number')
    })

    it('keeps every campaign to its account', async () => {
      const id = (await create(a, {})).json<{ data: { task_id: number } }>().data.task_id
      for (const url of [`/viber/task/${id}`, `/viber/task/${id}/recipients`, `/outbox?campaign_id=${id}`]) {
        const answer = await t.call(b.account, { method: 'GET', url })
        assert.equal(answer.statusCode, 404, url)
      }
      const update = await t.call(b.account, { method: 'POST', url: '/viber/update', payload: { main_task_id: id, message: 'Hijacked' } })
      assert.equal(update.statusCode, 404)
      assert.ok(!(await t.call(b.account, { method: 'GET', url: '/viber/task' })).json<{ id: number }[]>().some((c) => c.id === id))
      const stats = await viberStatistics(t, a.account, id)
      assert.equal((stats as unknown as { message: string }).message, 'Sale today')
    })

    it('refuses a campaign the balance cannot pay with error_code 14', async () => {
      const poor = await viberSetup(t)
      await t.deps.db.insertInto('ledger_entries').values({ account_id: poor.account.id, amount_micros: -99_995_000, kind: 'write_off', note: 'test', created_at: t.clock.now }).execute()
      const answer = await create(poor, { recipients: numbers(1000) })
      assert.equal(answer.statusCode, 422)
      assert.equal(answer.json<{ error_code: number }>().error_code, 14)
      assert.equal((await t.call(poor.account, { method: 'GET', url: '/viber/task' })).json<unknown[]>().length, 0)
    })
  })
}

/** The JSON types each field of the Go SDK's Viber structs decodes from (int: a JSON integer; string and int also accept null). */
const GO_STRUCTS: Record<string, Record<string, 'int' | 'string' | 'float' | 'date' | 'object'>> = {
  ViberCampaign: { id: 'int', name: 'string', message: 'string', button_text: 'string', button_link: 'string', image_link: 'string', address_book: 'int', sender_name: 'string', sender_id: 'int', message_live_time: 'int', send_date: 'date', status: 'string', created: 'date' },
  ViberCampaignStatistics: { id: 'int', name: 'string', message: 'string', button_text: 'string', button_link: 'string', image_link: 'string', address_book: 'int', sender_name: 'string', send_date: 'date', status: 'string', statistic: 'object', created: 'date' },
  ViberRecipient: { phone: 'int', address_book_id: 'int', status: 'string', sent_date: 'date', price: 'float', currency: 'string', last_update: 'date' },
}

/** Whether `value` decodes into a Go field of `type` as encoding/json does (null leaves the zero value). */
function decodesAs(value: unknown, type: 'int' | 'string' | 'float' | 'date' | 'object'): boolean {
  if (value === null) return type !== 'object'
  if (type === 'int') return Number.isInteger(value)
  if (type === 'float') return typeof value === 'number'
  if (type === 'date') return typeof value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value)
  return typeof value === type
}

function assertGoDecodes(struct: keyof typeof GO_STRUCTS, value: Record<string, unknown>): void {
  for (const [field, type] of Object.entries(GO_STRUCTS[struct]!)) {
    assert.ok(field in value, `${struct}.${field} is present`)
    assert.ok(decodesAs(value[field], type), `${struct}.${field} = ${JSON.stringify(value[field])} decodes as ${type}`)
  }
}

describe('Viber answers as the Go SDK decodes them', () => {
  it('has every field the Go structs read, in a type encoding/json takes', async () => {
    const t = await startTestApp('sqlite', { viberPrices: PRICES })
    try {
      const a = await viberSetup(t)
      const created = await t.call(a.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Go', message_type: 2, sender_id: a.senderId, message_live_time: 1000, sent_date: '0001-01-01 00:00:00', address_book: 0, recipients: numbers(2), message: 'Hi' },
      })
      const id = created.json<{ data: { task_id: number } }>().data.task_id
      assert.ok(Number.isInteger(id))
      const [listed] = (await t.call(a.account, { method: 'GET', url: '/viber/task?limit=10&offset=0' })).json<Record<string, unknown>[]>()
      assertGoDecodes('ViberCampaign', listed!)
      assertGoDecodes('ViberCampaignStatistics', (await t.call(a.account, { method: 'GET', url: `/viber/task/${id}` })).json())
      const { recipients } = (await t.call(a.account, { method: 'GET', url: `/viber/task/${id}/recipients` })).json<{ recipients: Record<string, unknown>[] }>()
      for (const recipient of recipients) assertGoDecodes('ViberRecipient', recipient)
    } finally {
      await t.close()
    }
  })
})
