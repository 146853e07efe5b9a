// Issue 21's scenario in Chromium, on both databases, against a test app that sends for real (its dispatcher running,
// an SMTP server on loopback as the relay): sign in; create a list and import a CSV of 1,000 contacts through the UI
// (the bar reaching 100 %); a refused campaign shows the API's message; a test send from a template reaches the
// sender's address; a campaign scheduled in the browser's time zone (Kolkata, UTC+5:30) is stored at the right UTC
// time, its page asks no more once left, and it is canceled after a confirmation; a campaign to the list is watched on
// its page until "Sent" at 100 % while the relay receives the 1,000 messages, and its page stops asking once it is
// finished; one of its messages opened in the Outbox; the Dashboard's chart; sign-out ends access. axe-core and no sideways scrolling at 375
// and 1440 px on the campaign list, form and detail. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { activeSender } from '../helpers/senders.js'
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js'
import { fitsAndPassesAxe, openConsoleTab, seriousAxeViolations, sharedConsoleBrowser, signIn, cspViolationsOf, recordCspViolations } from '../helpers/browser.js'
import { startDispatch, type Stoppable } from '../../src/main.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
const CONTACTS = 1000
const SENDER = 'news@scenario.example'
/** The browser's time zone: 5 h 30 min ahead of UTC all year (no daylight saving), so a wrong conversion shows. */
const ZONE = 'Asia/Kolkata'
const ZONE_OFFSET_MS = 5.5 * 3_600_000
/** The detail page asks every 2 s: longer than that without a request means it stopped. */
const QUIET_MS = 2500

const TEMPLATE_HTML = '<h1>Monthly letter for {{name}}</h1>'

const address = (i: number) => `member${String(i).padStart(4, '0')}@example.com`
const csv = () => ['email,name', ...Array.from({ length: CONTACTS }, (_, i) => `${address(i)},Member ${i}`)].join('\r\n') + '\r\n'
/** `YYYY-MM-DD HH:MM:SS` of an instant in UTC (the API's send_date), and `YYYY-MM-DDTHH:MM` as a datetime-local input in Kolkata. */
const wireDate = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
const kolkataInput = (ms: number) => new Date(ms + ZONE_OFFSET_MS).toISOString().slice(0, 16)

interface ApiCampaign {
  id: number
  status: number
  send_date: string
  all_email_qty: number
  statistics: { sent: number; delivered: number }
}

describe('the web console scenario in Chromium: import, send, watch, outbox, sign out', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let sink: SmtpSink
      let dispatch: Stoppable
      let base: string
      let account: TestAccount
      let context: BrowserContext
      let page: Page
      const consoleErrors: string[] = []
      /** The path of every request the server receives. */
      const served: string[] = []

      const campaigns = async () => (await t.call(account, { method: 'GET', url: '/campaigns?limit=100' })).json<ApiCampaign[]>()
      const campaign = async (id: number) => (await t.call(account, { method: 'GET', url: `/campaigns/${id}` })).json<ApiCampaign>()
      /** The form filled for a campaign to the imported list, from HTML. */
      const fillForm = async (subject: string) => {
        await page.getByRole('link', { name: 'Campaigns', exact: true }).click()
        await page.getByRole('link', { name: 'New campaign' }).click()
        await page.getByRole('heading', { name: 'New campaign', level: 1 }).waitFor()
        await page.getByRole('radio', { name: 'From HTML' }).check()
        await page.getByLabel('HTML source').fill('<h1>Hello {{name}}</h1><p>Our news for {{email}}.</p>')
        await page.getByRole('checkbox', { name: /^Readers/ }).check()
        await page.getByLabel('Sender', { exact: true }).selectOption(SENDER)
        assert.equal(await page.getByLabel('Sender name').inputValue(), 'Scenario News', 'the sender’s name by default')
        await page.getByLabel(/^Subject/).fill(subject)
      }

      before(async () => {
        // Envelopes only: parsing 1,000 messages would take seconds of the test's CPU; the Outbox shows one rendered.
        sink = await startSmtpSink({ envelopesOnly: true })
        t = await startTestApp(dialect, { smtpUrl: sink.url, campaignsPerHour: 100 })
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        t.app.server.on('request', (request: { url?: string }) => served.push(request.url ?? ''))
        account = await t.account('Scenario Ltd')
        await activeSender(t, account, SENDER, 'Scenario News')
        const template = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Monthly letter', body: Buffer.from(TEMPLATE_HTML).toString('base64') } })
        assert.equal(template.statusCode, 200, template.body)
        dispatch = startDispatch(t.deps, 'serve')
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors, options: { timezoneId: ZONE } }))
        await recordCspViolations(context)
      })
      after(async () => {
        await context?.close()
        await dispatch?.stop()
        await t?.close()
        await sink?.close()
      })

      it('signs in, creates a list and imports 1,000 contacts from a CSV file, the bar reaching 100 %', async () => {
        await signIn(page, base, account)
        // The console opens on the Dashboard.
        await page.getByRole('link', { name: 'Lists', exact: true }).click()
        await page.getByLabel('New list name').fill('Readers')
        await page.getByRole('button', { name: 'Create list' }).click()
        await page.getByRole('link', { name: 'Readers' }).click()
        await page.getByRole('button', { name: 'Import CSV' }).click()
        const dialog = page.getByRole('dialog', { name: 'Import contacts from CSV' })
        await dialog.getByLabel('CSV file').setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv()) })
        await dialog.getByRole('button', { name: 'Import', exact: true }).click()
        await dialog.getByText('Done: 1,000 rows read, 0 skipped, 1,000 added or updated.').waitFor()
        assert.equal(await dialog.getByRole('progressbar', { name: 'Import progress' }).getAttribute('aria-valuenow'), '100')
        await dialog.getByRole('button', { name: 'Close' }).click()
        const books = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ id: number; name: string; active_email_qty: number }[]>()
        assert.deepEqual(books.map((b) => [b.name, b.active_email_qty]), [['Readers', CONTACTS]])
      })

      it('shows the API’s message when a campaign is refused, and sends a test from a template to the sender’s own address', async () => {
        await fillForm('Too late {{name}}')
        await fitsAndPassesAxe(page, 'the campaign form')
        await page.getByLabel(/^Send at/).fill(kolkataInput(Date.now() - 86_400_000))
        await page.getByRole('button', { name: 'Create campaign' }).click()
        await page.getByRole('alert').getByText('Argument send_date must not be earlier than the current date and time').waitFor()
        assert.deepEqual(await campaigns(), [], 'nothing created')

        // The test from one of the account's templates instead of the HTML.
        await page.getByLabel(/^Send at/).fill('')
        await page.getByRole('radio', { name: 'From a template' }).check()
        await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Monthly letter' })
        await page.getByRole('button', { name: 'Send a test' }).click()
        await page.getByRole('status').getByText(`A test email is on its way to ${SENDER}`).waitFor()
        const [test] = await campaigns()
        assert.ok(test && [4, 8].includes(test.status), `a test campaign: ${JSON.stringify(test)}`)
        const body = (await t.call(account, { method: 'GET', url: `/campaigns/${test.id}` })).json<{ message: { body: string } }>().message.body
        assert.equal(body, TEMPLATE_HTML, 'the template chosen')
        // The sender's address got its activation code before; the test is the second email to it.
        for (let waited = 0; sink.recipients.filter((r) => r === SENDER).length < 2; waited += 50) {
          assert.ok(waited < WAIT_MS, 'the test email reaches the relay')
          await sleep(50)
        }
        assert.deepEqual(sink.recipients, [SENDER, SENDER], 'to the sender alone')
        for (let waited = 0; (await campaign(test.id)).status !== 8; waited += 50) {
          assert.ok(waited < WAIT_MS, 'the test campaign ends as sent')
          await sleep(50)
        }
      })

      it('schedules a campaign in the browser’s time zone, stored in UTC, and cancels it after a confirmation', async () => {
        const at = Math.floor((Date.now() + 86_400_000) / 60_000) * 60_000
        await fillForm('Tomorrow {{name}}')
        await page.getByLabel(/^Send at/).fill(kolkataInput(at))
        await page.getByText(`Sent at ${wireDate(at)} UTC.`).waitFor()
        await page.getByRole('button', { name: 'Create campaign' }).click()
        await page.getByRole('heading', { name: 'Tomorrow {{name}}', level: 1 }).waitFor()
        const id = Number(/#\/campaigns\/(\d+)$/.exec(page.url())?.[1])
        assert.equal((await campaign(id)).send_date, wireDate(at), 'the local time sent as UTC')
        await page.getByText(`Scheduled for ${wireDate(at)} UTC`).waitFor()

        // Left while it is not finished: its page asks no more.
        await page.getByRole('link', { name: 'Back to the campaigns' }).click()
        await page.getByRole('row', { name: /Tomorrow \{\{name\}\} Scheduled for/ }).waitFor()
        const leftAt = Date.now()
        const asked = served.filter((path) => path === `/campaigns/${id}`).length
        await fitsAndPassesAxe(page, 'the campaign list')
        await sleep(Math.max(0, QUIET_MS - (Date.now() - leftAt)))
        assert.equal(served.filter((path) => path === `/campaigns/${id}`).length, asked, 'no polling once the page is left')
        await page.getByRole('link', { name: 'Tomorrow {{name}}' }).click()

        await page.getByRole('button', { name: 'Cancel campaign' }).click()
        const confirm = page.getByRole('dialog', { name: 'Cancel “Tomorrow {{name}}”?' })
        assert.deepEqual(await seriousAxeViolations(page), [], 'the confirmation')
        await confirm.getByRole('button', { name: 'Keep it' }).click()
        assert.notEqual((await campaign(id)).status, 16, 'kept')
        await page.getByRole('button', { name: 'Cancel campaign' }).click()
        await confirm.getByRole('button', { name: 'Cancel the campaign' }).click()
        await page.getByRole('status').getByText('Campaign canceled').waitFor()
        await page.getByText('Canceled', { exact: true }).waitFor()
        assert.equal((await campaign(id)).status, 16)
        assert.equal(await page.getByRole('button', { name: 'Cancel campaign' }).count(), 0, 'nothing left to cancel')
      })

      it('sends a campaign to 1,000 over SMTP, watched until “Sent” at 100 %; its page stops asking then; a message opened in the Outbox', async () => {
        await fillForm('Hello {{name}}')
        await page.getByRole('button', { name: 'Create campaign' }).click()
        await page.getByRole('heading', { name: 'Hello {{name}}', level: 1 }).waitFor()
        const id = Number(/#\/campaigns\/(\d+)$/.exec(page.url())?.[1])
        const bar = page.getByRole('progressbar', { name: 'Sending progress' })
        await page.locator('.facts dd', { hasText: /^Sent$/ }).waitFor()
        const finishedAt = Date.now()
        const asked = served.filter((path) => path === `/campaigns/${id}`).length
        assert.equal(await bar.getAttribute('aria-valuenow'), '100')
        await page.getByText('1,000 of 1,000 messages done (100 %).').waitFor()
        assert.equal(await page.locator('.counts div', { hasText: 'Delivered' }).locator('dd').textContent(), '1,000')

        const sent = await campaign(id)
        assert.deepEqual([sent.status, sent.all_email_qty, sent.statistics.sent, sent.statistics.delivered], [3, CONTACTS, CONTACTS, CONTACTS])
        const readers = sink.recipients.filter((r) => r !== SENDER)
        assert.equal(readers.length, CONTACTS)
        assert.deepEqual(new Set(readers), new Set(Array.from({ length: CONTACTS }, (_, i) => address(i))))
        await fitsAndPassesAxe(page, 'the campaign page')
        await sleep(Math.max(0, QUIET_MS - (Date.now() - finishedAt)))
        assert.equal(served.filter((path) => path === `/campaigns/${id}`).length, asked, 'no more polling once sent')
        await page.getByRole('link', { name: 'Back to the campaigns' }).click()
        await page.getByRole('row', { name: /Hello \{\{name\}\} Sent 1,000 1,000 1,000/ }).waitFor()

        await page.getByRole('link', { name: 'Outbox', exact: true }).click()
        // Its first answer (the service emails: the sender's activation code) shown before filtering, or, coming
        // later, it would replace the campaign's.
        await page.getByRole('row', { name: new RegExp(`${SENDER.replace('.', '\\.')} sender_code`) }).waitFor()
        await page.getByLabel(/^Campaign ID/).fill(String(id))
        await page.getByRole('button', { name: 'Show' }).click()
        const first = page.getByRole('row', { name: /^Hello Member \d+ member\d{4}@example\.com campaign sent / }).first()
        const to = (await first.getByRole('cell').first().textContent()) ?? ''
        const greeting = `Hello Member ${Number(/^member(\d{4})@/.exec(to)?.[1])}`
        await first.getByRole('button', { name: greeting }).click()
        await page.getByRole('heading', { name: greeting, level: 1 }).waitFor()
        await page.frameLocator('iframe[title="Message body (HTML)"]').getByRole('heading', { name: greeting }).waitFor()

        // The chart: the Dashboard draws the day's emails, the 1,000 (and the test) in today's row of its table.
        await page.getByRole('link', { name: 'Dashboard', exact: true }).click()
        await page.locator('figure.chart canvas').first().waitFor()
        const daily = (await t.call(account, { method: 'GET', url: '/statistics/email/daily?days=30' })).json<{ today: { sent: number } }>()
        assert.ok(daily.today.sent >= CONTACTS, `sent today: ${daily.today.sent}`)
        assert.equal(await page.locator('figure.chart tbody tr').last().locator('td').first().textContent(), daily.today.sent.toLocaleString('en'))
      })

      it('signs out: the old cookie gets 401', async () => {
        const cookie = (await context.cookies())[0]!
        const csrfToken = await page.evaluate(async () => ((await (await fetch('/console/session')).json()) as { csrf_token: string }).csrf_token)
        const replay = () => fetch(`${base}/campaigns`, { headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': csrfToken } })
        assert.equal((await replay()).status, 200, 'the cookie works while signed in')
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
        assert.deepEqual(await cspViolationsOf(page), [])
        const replayed = await replay()
        assert.equal(replayed.status, 401)
      })
    })
  }
})
