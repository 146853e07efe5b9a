// The Webhooks page of the web console in Chromium, on both databases, with the real webhook sender running and two
// real receivers on loopback (one answering 200, one 500): add a webhook with two actions, send a test event and see
// its request in the delivery log (status 200, the receiver holding a signed event), the same for the failing
// receiver (status 500 and its error), the secret shown and rotated, a webhook deleted after a confirmation; axe-core
// and no sideways scrolling at 375 and 1440 px. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { fitsAndPassesAxe, openPage, seriousAxeViolations, sharedConsoleBrowser, signIn } from '../helpers/browser.js'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js'
import { WebhookSender } from '../../src/dispatcher/webhook-sender.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
const BASE = '/v2/email-service/webhook'

describe('the webhooks page of the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()
  let working: WebhookReceiver
  let failing: WebhookReceiver
  before(async () => {
    working = await startWebhookReceiver()
    failing = await startWebhookReceiver()
    failing.status = 500
  })
  after(async () => {
    await working?.close()
    await failing?.close()
  })

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let sender: WebhookSender
      let account: TestAccount
      let context: BrowserContext
      let page: Page

      const webhooks = async () => (await t.call(account, { method: 'GET', url: BASE })).json<{ data: { id: number; url: string; action: string }[] }>().data
      const deliveries = async (id: number) => (await t.call(account, { method: 'GET', url: `${BASE}/${id}/deliveries` })).json<{ data: { status_code: number | null; error: string | null }[] }>().data
      const secret = async () => (await t.call(account, { method: 'GET', url: `${BASE}/secret` })).json<{ data: { secret: string } }>().data.secret
      const addWebhook = async (url: string, actions: string[]) => {
        await page.getByLabel('URL', { exact: true }).fill(url)
        for (const action of actions) await page.getByRole('checkbox', { name: new RegExp(`^${action} `) }).check()
        await page.getByRole('button', { name: 'Add webhook' }).click()
        await page.getByRole('status').getByText(`${url} now receives ${actions.join(', ')}.`).waitFor()
      }

      before(async () => {
        // The receivers are on loopback: the operator's opt-in (TIDINGS_WEBHOOK_ALLOW_PRIVATE=1) lets the sender reach them.
        t = await startTestApp(dialect, { webhookAllowPrivate: true })
        const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        sender = new WebhookSender(t.deps, { pollMs: 100 })
        sender.start()
        account = await t.account('Hooks Test Ltd')
        context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } })
        context.setDefaultTimeout(WAIT_MS)
        page = await context.newPage()
        await signIn(page, base, account)
        await openPage(page, 'Webhooks')
      })
      after(async () => {
        await sender?.stop()
        await context?.close()
        await t?.close()
      })

      it('adds a webhook, sends a test event and shows its request in the delivery log with status 200', async () => {
        await page.getByText('No webhooks yet').waitFor()
        const receivedBefore = working.received.length
        await addWebhook(working.url, ['open', 'delivered'])
        assert.deepEqual((await webhooks()).map((w) => [w.url, w.action]), [[working.url, 'open'], [working.url, 'delivered']])

        await page.getByRole('button', { name: `Delivery log of delivered to ${working.url}` }).click()
        const log = page.getByRole('region', { name: `Delivery log of ${working.url}` })
        await log.getByText('No requests made to this URL yet.').waitFor()
        await log.getByRole('button', { name: 'Send a test event' }).click()
        await log.getByRole('status').getByText('Test event queued').waitFor()
        const row = log.getByRole('row', { name: /UTC|\d{4}-\d\d-\d\d/ }).filter({ hasText: '200' })
        await row.waitFor()
        assert.match((await row.textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d200\d+ ms1$/)

        const id = (await webhooks()).find((w) => w.action === 'delivered')!.id
        assert.deepEqual((await deliveries(id)).map((a) => [a.status_code, a.error]), [[200, null]])
        assert.equal(working.received.length, receivedBefore + 1)
        const delivery = working.received.at(-1)!
        assert.deepEqual(delivery.events.map((e) => [e.event, e.webhook_id]), [['test', String(id)]])
        const signedWith = await secret()
        assert.doesNotThrow(() => new Webhook(signedWith).verify(delivery.body, delivery.headers as Record<string, string>, { jsonParse: false }))
      })

      it('shows the failure of a receiver answering 500, and its error', async () => {
        await page.setViewportSize({ width: 1440, height: 900 })
        const refusedBefore = failing.refused
        await addWebhook(failing.url, ['spam'])
        await page.getByRole('button', { name: `Delivery log of spam to ${failing.url}` }).click()
        const log = page.getByRole('region', { name: `Delivery log of ${failing.url}` })
        await log.getByText('No requests made to this URL yet.').waitFor()
        await log.getByRole('button', { name: 'Send a test event' }).click()
        await log.getByRole('row').filter({ hasText: 'HTTP 500' }).waitFor()
        assert.match((await log.getByRole('row').filter({ hasText: 'HTTP 500' }).textContent()) ?? '', /500\d+ ms1HTTP 500$/)
        const id = (await webhooks()).find((w) => w.action === 'spam')!.id
        assert.deepEqual((await deliveries(id)).map((a) => [a.status_code, a.error]), [[500, 'HTTP 500']])
        assert.equal(failing.refused, refusedBefore + 1)
      })

      it('shows the signing secret on demand and rotates it after a confirmation', async () => {
        await page.getByRole('button', { name: 'Show secret' }).click()
        const shown = page.getByLabel('Signing secret')
        await shown.waitFor()
        assert.equal(await shown.textContent(), await secret())
        const before = await secret()
        await page.getByRole('button', { name: 'Rotate secret' }).click()
        const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
        await dialog.getByRole('button', { name: 'Cancel' }).click()
        assert.equal(await secret(), before, 'cancelled: the secret stays')
        await page.getByRole('button', { name: 'Rotate secret' }).click()
        await dialog.getByRole('button', { name: 'Rotate secret' }).click()
        await page.getByRole('status').getByText('A new signing secret was made').waitFor()
        const after = await secret()
        assert.notEqual(after, before)
        assert.equal(await shown.textContent(), after)
        // The page at its fullest: the list, a delivery log with a failed request, the secret.
        await fitsAndPassesAxe(page, 'webhooks with a delivery log and the secret')
        await page.setViewportSize({ width: 1440, height: 900 })
      })

      it('deletes a webhook after a confirmation', async () => {
        const name = `Delete spam to ${failing.url}`
        await page.getByRole('button', { name }).click()
        const confirm = page.getByRole('dialog', { name: `Delete spam to ${failing.url}?` })
        assert.deepEqual(await seriousAxeViolations(page), [], 'with the dialog open')
        await confirm.getByRole('button', { name: 'Cancel' }).click()
        assert.equal((await webhooks()).length, 3, 'cancelled: nothing deleted')
        await page.getByRole('button', { name }).click()
        await confirm.getByRole('button', { name: 'Delete webhook' }).click()
        await page.getByRole('status').getByText(`Webhook spam of ${failing.url} deleted.`).waitFor()
        assert.deepEqual((await webhooks()).map((w) => w.action), ['open', 'delivered'])
        assert.equal(await page.getByRole('button', { name }).count(), 0)
      })
    })
  }
})
