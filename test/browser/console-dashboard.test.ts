// The Dashboard of the web console in Chromium, on both databases: the page the console opens on after sign-in,
// showing a known month of emails (rows as the dispatcher, tracking and bounce reports leave them, on both sides of
// this UTC day's midnight) and none of another account's: today's and the period's counts, the rates, the queue, the
// balance, the chart drawn (a canvas in its figure) and its table with each day's numbers; axe-core and no
// sideways scrolling at 375 and 1440 px. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { fitsAndPassesAxe, openConsoleTab, sharedConsoleBrowser } from '../helpers/browser.js'
import * as accounts from '../../src/services/accounts/accounts.js'
import { MESSAGE_STATUS as S } from '../../src/storage/repos/messages.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
const DAY = 86_400_000

interface Row {
  status: number
  sent_at?: number
  updated_at?: number
  opened_at?: number
  clicked_at?: number
  queued?: number
}

describe('the dashboard of the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let account: TestAccount
      let context: BrowserContext
      let page: Page
      let midnight: number
      const consoleErrors: string[] = []

      const insertMessages = async (accountId: number, rows: Row[]) => {
        const now = t.clock.now
        const campaign = await t.deps.db
          .insertInto('campaigns')
          .values({ account_id: accountId, name: 'News', status: 3, sender_name: 'N', sender_email: 'n@x.example', subject: 's', body: 'b', list_ids: '[]', send_at: now, currency: 'USD', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
        await t.deps.db
          .insertInto('messages')
          // Every column in every row: SQLite has no DEFAULT in a VALUES list.
          .values(rows.map((r, i) => ({ campaign_id: campaign.id, account_id: accountId, address: `r${i}@x.example`, channel: 'email', queued: 0, sent_at: null, opened_at: null, clicked_at: null, updated_at: r.sent_at ?? now, ...r })))
          .execute()
      }
      /** The figure a term of the page's facts shows. */
      const fact = (term: string) => page.locator('dl.facts > div').filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd').textContent()
      /** The cells of the chart table's row of the day starting at `at`. */
      const dayRow = async (at: number) => {
        const label = new Date(at).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' })
        const row = page.locator('figure.chart details tbody tr').filter({ has: page.locator('th', { hasText: new RegExp(`^${label}$`) }) })
        return row.locator('td').allTextContents()
      }

      before(async () => {
        t = await startTestApp(dialect)
        const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        midnight = Math.floor(t.clock.now / DAY) * DAY
        account = await t.account('Dashboard Ltd')
        await accounts.creditAccount(t.deps, account.id, '23.5')
        await insertMessages(account.id, [
          // Today: clicked, opened, delivered, and one refused at once (no sent_at).
          { status: S.redirected, sent_at: midnight, opened_at: midnight + 60_000, clicked_at: midnight + 120_000 },
          { status: S.opened, sent_at: midnight + 1000, opened_at: midnight + 60_000 },
          { status: S.delivered, sent_at: midnight + 2000 },
          { status: 6, updated_at: midnight + 3000 },
          // Yesterday, to its last millisecond: two delivered, one reported as spam after it was opened.
          { status: S.delivered, sent_at: midnight - 1 },
          { status: S.delivered, sent_at: midnight - 1 },
          { status: S.markedAsSpam, sent_at: midnight - 1, opened_at: midnight - 1 },
          // Waiting to be sent.
          { status: S.queued, queued: 1 },
          { status: S.queued, queued: 1 },
        ])
        // Another account's month, which this one must never see.
        const other = await t.account('Other Ltd')
        await insertMessages(other.id, Array.from({ length: 50 }, () => ({ status: S.opened, sent_at: midnight, opened_at: midnight })))
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors }))
        await page.goto(`${base}/console/`)
        await page.getByLabel('Client ID').waitFor()
        // Signed out, GET /console/session answered 401, which the browser logs: only what follows counts.
        consoleErrors.length = 0
        await page.getByLabel('Client ID').fill(account.clientId)
        await page.getByLabel('Client secret').fill(account.clientSecret)
        await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      it("opens on the dashboard after sign-in and shows the account's own figures", async () => {
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
        assert.equal(await page.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current'), 'page')
        assert.equal(await fact('Emails sent today'), '4')
        assert.equal(await fact('Emails sent in the last 30 days'), '7')
        assert.equal(await fact('Waiting in the queue'), '2')
        assert.equal(await fact('Balance'), '123.50 USD')
        // Delivered 6 of 7 sent; of the 6 delivered: 3 opened, 1 clicked, 1 complaint; bounced 1 of 7.
        assert.equal(await fact('Delivery rate'), '85.7%')
        assert.equal(await fact('Open rate'), '50%')
        assert.equal(await fact('Click rate'), '16.7%')
        assert.equal(await fact('Bounce rate'), '14.3%')
        assert.equal(await fact('Complaint rate'), '16.7%')
      })

      it('draws the chart and gives its figures as a table, a row per UTC day', async () => {
        const figure = page.getByRole('figure', { name: 'Emails per day, last 30 days' })
        await figure.locator('canvas').first().waitFor()
        await figure.getByText('Emails per day, last 30 days: as a table').click()
        assert.deepEqual(await figure.locator('details').getByRole('columnheader').allTextContents(), ['Time (UTC)', 'Sent', 'Delivered', 'Opened', 'Clicked'])
        assert.equal(await figure.locator('details tbody tr').count(), 30)
        assert.deepEqual(await dayRow(midnight), ['4', '3', '2', '1'])
        assert.deepEqual(await dayRow(midnight - DAY), ['3', '3', '1', '0'])
        assert.deepEqual(await dayRow(midnight - 2 * DAY), ['0', '0', '0', '0'])
        assert.deepEqual(consoleErrors, [], 'no error logged, a CSP violation included')
      })

      it('passes axe and fits 375 and 1440 px without sideways scrolling', async () => {
        await fitsAndPassesAxe(page, 'the dashboard')
      })
    })
  }
})
