// The SMS and Viber pages of the web console in Chromium, on both databases: each section's main flow, checked
// through the API after the UI action (an SMS campaign created after its cost was shown, then canceled; a list's
// numbers added, looked up and deleted; both blacklists; sender names; a Viber campaign with an SMS fallback and its
// recipients); refusals shown with the API's own message; axe-core and no sideways scrolling at 375 and 1440 px on
// each section. No sending process runs: a created campaign stays queued. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { fitsAndPassesAxe, seriousAxeViolations, sharedConsoleBrowser, signIn } from '../helpers/browser.js'
import { smsCampaignInfo } from '../helpers/sms.js'
import { viberRecipients, viberSetup, type ViberSetup } from '../helpers/viber.js'
import { registerSmsSender } from '../../src/services/sms/senders.js'
import { readViberOptions } from '../../src/services/viber/campaign-input.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
const UA = ['+380631234567', '380671234567']

describe('the SMS and Viber pages of the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let setup: ViberSetup
      let listId: number
      let context: BrowserContext
      let page: Page

      const call = async <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
        const answer = await t.call(setup.account, { method, url, ...(payload ? { payload } : {}) })
        return { status: answer.statusCode, body: answer.json<T>() }
      }
      /** The checks, then back to the 1440×900 the tab opened at, where this file's other steps run. */
      const fitsAndPassesAxeAtFullSize = async (name: string) => {
        await fitsAndPassesAxe(page, name)
        await page.setViewportSize({ width: 1440, height: 900 })
      }
      const section = async (pageTitle: 'SMS' | 'Viber', title: string) => {
        // Wide, with the navigation shown and no dialog open, whatever a failed test before left.
        await page.setViewportSize({ width: 1440, height: 900 })
        if ((await page.locator('dialog[open]').count()) > 0) await page.keyboard.press('Escape')
        await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: pageTitle, exact: true }).click()
        await page.getByRole('navigation', { name: `${pageTitle} sections` }).getByRole('link', { name: title, exact: true }).click()
        await page.getByRole('heading', { name: title, level: 2 }).waitFor()
      }
      const status = (text: string | RegExp) => page.getByRole('status').getByText(text).waitFor()
      /** The page shows the refusal in the API's words. */
      const refusedWith = async (message: string) => {
        await page.getByRole('alert').filter({ hasText: message }).waitFor()
      }

      before(async () => {
        t = await startTestApp(dialect, { smsPrices: 'default=0.02,UA=0.015', viberPrices: 'default=0.01' })
        // An SMS sender "Shop" (active) and a Viber sender name "Shop" (verified); one more SMS sender in moderation.
        setup = await viberSetup(t)
        await registerSmsSender(t.deps, setup.account.id, 'Waiting')
        listId = (await call<{ id: number }>('POST', '/addressbooks', { bookName: 'Phone clients' })).body.id
        context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } })
        context.setDefaultTimeout(WAIT_MS)
        page = await context.newPage()
        await signIn(page, await t.app.listen({ port: 0, host: '127.0.0.1' }), setup.account)
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      it("adds numbers to a list, looks one up, deletes one; a number not in the list is refused with the API's message", async () => {
        await section('SMS', 'Numbers')
        const added = page.getByLabel(/^Numbers to add/)
        await added.fill(`${UA.join(', ')}\nnot-a-number`)
        await page.getByRole('button', { name: 'Add numbers' }).click()
        await status('2 added, 0 already in the list, 1 not a phone number.')
        for (const phone of UA) assert.equal((await call('GET', `/sms/numbers/info/${listId}/${encodeURIComponent(phone)}`)).status, 200, phone)
        await page.getByText('Phone clients: 2 numbers active').waitFor()

        await page.getByLabel('Look up a number').fill(UA[0]!)
        await page.getByRole('button', { name: 'Look up' }).click()
        await page.getByRole('definition').filter({ hasText: 'Active' }).waitFor()
        await fitsAndPassesAxeAtFullSize('SMS numbers')

        await page.getByLabel('Numbers to delete').fill(UA[1]!)
        await page.getByRole('button', { name: 'Delete numbers' }).click()
        await status('1 deleted.')
        const gone = await call<{ message: string }>('GET', `/sms/numbers/info/${listId}/${UA[1]}`)
        assert.equal(gone.status, 404)
        await page.getByLabel('Look up a number').fill(UA[1]!)
        await page.getByRole('button', { name: 'Look up' }).click()
        await refusedWith(gone.body.message)
      })

      it('creates an SMS campaign to the list after showing its cost, refuses an empty message with the API message, and cancels it', async () => {
        // A list of its own (one Ukrainian number), whatever the numbers test left in the other.
        const campaignList = (await call<{ id: number }>('POST', '/addressbooks', { bookName: 'Campaign list' })).body.id
        assert.equal((await call('POST', '/sms/numbers', { addressBookId: campaignList, phones: [UA[0]] })).status, 200)
        await section('SMS', 'Campaigns')
        await page.getByText('No SMS campaigns were created in these days.').waitFor()
        await page.getByText('New SMS campaign').click()
        await page.getByLabel('Send to').selectOption(String(campaignList))
        await page.getByLabel('Sender name').selectOption('Shop')
        await page.getByRole('button', { name: 'Show the cost' }).click()
        const refused = await call<{ message: string }>('GET', `/sms/campaigns/cost?addressBookId=${campaignList}&sender=Shop&body=`)
        assert.ok(refused.status >= 400 && refused.status < 500, `${refused.status}`)
        await refusedWith(refused.body.message)

        await page.getByLabel('Message', { exact: true }).fill('Sale today')
        await page.getByLabel(/^Send at/).fill('2030-01-02T10:30')
        await page.getByRole('button', { name: 'Show the cost' }).click()
        const confirm = page.getByRole('dialog', { name: 'Send this SMS campaign?' })
        const cost = await call<{ data: { price: number; currency: string } }>('GET', `/sms/campaigns/cost?addressBookId=${campaignList}&sender=Shop&body=Sale+today`)
        await confirm.getByText(`${cost.body.data.price} ${cost.body.data.currency}`).waitFor()
        assert.equal(cost.body.data.price, 0.015, 'one Ukrainian number')
        assert.deepEqual(await seriousAxeViolations(page), [], 'with the cost dialog open')
        const listed = async () => (await call<{ data: { id: number }[] }>('GET', '/sms/campaigns/list')).body.data
        assert.deepEqual(await listed(), [], 'nothing created before the cost was confirmed')
        await confirm.getByRole('button', { name: 'Create campaign' }).click()
        await status(/^Campaign \d+ created\.$/)

        const [created] = await listed()
        assert.ok(created)
        const info = await smsCampaignInfo(t, setup.account, created.id)
        assert.deepEqual([info.address_book_id, info.sender_name, info.send_date, info.company_price], [campaignList, 'Shop', '2030-01-02 10:30:00', 0.015])
        assert.deepEqual(info.task_phones_info.map((n) => [n.phone, n.status_explain]), [[380631234567, 'Ready to send']], 'queued')
        await page.getByRole('row', { name: new RegExp(`Campaign ${created.id}: numbers and statuses Shop List: Campaign list .* 2030-01-02 10:30:00 0.015 USD`) }).waitFor()
        await fitsAndPassesAxeAtFullSize('SMS campaigns')

        await page.getByRole('button', { name: `Campaign ${created.id}: numbers and statuses` }).click()
        await page.getByRole('row', { name: /380631234567 Ready to send/ }).waitFor()
        await fitsAndPassesAxeAtFullSize('an SMS campaign')
        await page.getByRole('button', { name: 'Cancel campaign' }).click()
        await page.getByRole('dialog', { name: `Cancel campaign ${created.id}?` }).getByRole('button', { name: 'Cancel campaign' }).click()
        await status(`Campaign ${created.id} canceled: what it cost was paid back.`)
        const canceled = await smsCampaignInfo(t, setup.account, created.id)
        assert.deepEqual(canceled.task_phones_info.map((n) => [n.status_explain, n.money_spent]), [['Not delivered', 0]])
        assert.equal(await page.getByRole('button', { name: 'Cancel campaign' }).count(), 0)
      })

      it('blacklists SMS numbers with a description and removes one', async () => {
        await section('SMS', 'Blacklist')
        await page.getByText('The SMS blacklist is empty.').waitFor()
        await page.getByLabel(/^Numbers/).fill('+447400123456 447400654321')
        await page.getByLabel('Description (optional)').fill('asked by phone')
        await page.getByRole('button', { name: 'Add to blacklist' }).click()
        await status('Blacklist: 2 added, 0 already there, 0 not a phone number.')
        const entries = async () => (await call<{ data: { phone: number; description: string }[] }>('GET', '/sms/black_list')).body.data
        assert.deepEqual((await entries()).map((e) => [e.phone, e.description]).sort(), [[447400123456, 'asked by phone'], [447400654321, 'asked by phone']])
        await fitsAndPassesAxeAtFullSize('SMS blacklist')
        await page.getByRole('button', { name: 'Remove 447400123456 from the blacklist' }).click()
        await status('447400123456 removed from the blacklist.')
        assert.deepEqual((await entries()).map((e) => e.phone), [447400654321])
      })

      it('lists the SMS sender names with their status', async () => {
        await section('SMS', 'Sender names')
        await page.getByRole('row', { name: 'Shop Active' }).waitFor()
        await page.getByRole('row', { name: 'Waiting In moderation' }).waitFor()
        await fitsAndPassesAxeAtFullSize('SMS sender names')
      })

      it("creates a Viber campaign with an SMS fallback after a refusal in the API's words, and shows its recipients", async () => {
        await section('Viber', 'Campaigns')
        await page.getByText('No Viber campaigns yet.').waitFor()
        await page.getByText('New Viber campaign').click()
        await page.getByLabel('Campaign name').fill('Spring sale')
        await page.getByLabel('Send to').selectOption('numbers')
        await page.getByLabel(/^Numbers/).fill('447400100001, +447400100002')
        await page.getByLabel('Message', { exact: true }).fill('Spring sale: 20% off')
        await page.getByLabel('Button text (optional)').fill('Shop now')
        await page.getByLabel('Button link (optional)').fill('javascript:alert(1)')
        await page.getByLabel(/^Send an SMS where Viber does not deliver/).check()
        await page.getByLabel('SMS text').fill('Spring sale: 20% off at shop.example')
        await page.getByLabel('SMS sender name').selectOption('Shop')
        await page.getByRole('button', { name: 'Create campaign' }).click()
        const form = { task_name: 'Spring sale', message_type: 2, sender_id: setup.senderId, message_live_time: 3600, send_date: 'now', recipients: ['447400100001'], message: 'Spring sale' }
        const refused = await call<{ message: string }>('POST', '/viber', { ...form, additional: { button: { text: 'Shop now', link: 'javascript:alert(1)' } } })
        assert.equal(refused.status, 422)
        await refusedWith(refused.body.message)
        assert.deepEqual((await call<unknown[]>('GET', '/viber/task')).body, [], 'nothing created')

        await page.getByLabel('Button link (optional)').fill('https://shop.example/spring')
        await page.getByRole('button', { name: 'Create campaign' }).click()
        await status(/^Campaign \d+ created\.$/)
        const [created] = (await call<{ id: number }[]>('GET', '/viber/task')).body
        assert.ok(created)
        const stats = await call<Record<string, unknown>>('GET', `/viber/task/${created.id}`)
        const { name, message, sender_id, button_text, button_link, resend_sms } = stats.body
        assert.deepEqual(
          { name, message, sender_id, button_text, button_link, resend_sms },
          { name: 'Spring sale', message: 'Spring sale: 20% off', sender_id: setup.senderId, button_text: 'Shop now', button_link: 'https://shop.example/spring', resend_sms: true },
        )
        // The API answers only whether an SMS fallback is set: its text and sender are read from the stored campaign.
        const row = await t.deps.db.selectFrom('campaigns').select('channel_options').where('id', '=', created.id).executeTakeFirstOrThrow()
        assert.deepEqual(readViberOptions(row.channel_options).resendSms, { text: 'Spring sale: 20% off at shop.example', sender: 'Shop' })
        assert.deepEqual((await viberRecipients(t, setup.account, created.id)).map((r) => r.phone).sort(), [447400100001, 447400100002])
        await fitsAndPassesAxeAtFullSize('Viber campaigns')

        await page.getByRole('button', { name: 'Spring sale: statistics and recipients' }).click()
        await page.getByRole('row', { name: /447400100002 waiting/ }).waitFor()
        await page.getByText('Yes (0 sent so far)').waitFor()
        await fitsAndPassesAxeAtFullSize('a Viber campaign')
      })

      it('blacklists Viber numbers, removes one, and lists the Viber sender names', async () => {
        await section('Viber', 'Blacklist')
        await page.getByText('The Viber blacklist is empty.').waitFor()
        await page.getByLabel(/^Numbers/).fill('447400100001,447400100003')
        await page.getByLabel('Description (optional)').fill('complained')
        await page.getByRole('button', { name: 'Add to blacklist' }).click()
        await status('Blacklist: 2 added, 0 already there.')
        const entries = async () => (await call<{ data: { list: { phone: number; description: string }[] } }>('GET', '/v2/viber-service/phone-exception')).body.data.list
        assert.deepEqual((await entries()).map((e) => [e.phone, e.description]).sort(), [[447400100001, 'complained'], [447400100003, 'complained']])
        await fitsAndPassesAxeAtFullSize('Viber blacklist')
        await page.getByRole('button', { name: 'Remove 447400100001 from the blacklist' }).click()
        await status('447400100001 removed from the blacklist.')
        assert.deepEqual((await entries()).map((e) => e.phone), [447400100003])

        await section('Viber', 'Sender names')
        await page.getByRole('row', { name: /Shop verified GB/ }).waitFor()
        await fitsAndPassesAxeAtFullSize('Viber sender names')
      })
    })
  }
})
