// The campaign report of the web console in Chromium, on both databases: a sent campaign of 60 messages with known
// opens (across a UTC hour boundary), clicks, countries, link clicks and a bounce; the report's tables show those
// numbers, its chart is drawn, the recipients are filtered by status and paged 50 at a time (each page as the API
// gives it); axe-core and no sideways scrolling at 375 and 1440 px. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../helpers/campaigns.js'
import { fitsAndPassesAxe, openConsoleTab, sharedConsoleBrowser, signIn } from '../helpers/browser.js'
import { captureChannel } from '../../src/delivery/email/capture.js'
import * as messages from '../../src/storage/repos/messages.js'
import { countLinkClicks } from '../../src/storage/repos/campaigns.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
/** A page of 50 and a second of 10. */
const RECIPIENTS = 60
const DAY = Date.UTC(2026, 10, 23)
const HOUR = 3_600_000

describe('the campaign report of the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let base: string
      let setup: CampaignSetup
      let id: number
      let context: BrowserContext
      let page: Page
      const consoleErrors: string[] = []

      before(async () => {
        t = await startTestApp(dialect, { campaignsPerHour: 100 })
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        setup = await campaignSetup(t, RECIPIENTS)
        id = (await createCampaign(t, setup)).json<{ id: number }>().id
        await dispatcher(t, captureChannel()).drain()
        const ids = (await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', id).orderBy('id').execute()).map((r) => Number(r.id))
        const [m0, m1, m2, m3, m4] = ids as [number, number, number, number, number]
        await messages.markOpened(t.deps.db, [
          { id: m0, country: 'UA', at: DAY - 1 },
          { id: m1, country: 'PL', at: DAY },
          { id: m2, country: 'UA', at: DAY + HOUR },
          { id: m3, country: 'DE', at: DAY + HOUR },
        ])
        await messages.markClicked(t.deps.db, [
          { id: m0, at: DAY + 1000 },
          { id: m3, at: DAY + HOUR + 5 },
        ])
        await messages.markReported(t.deps.db, m4, { status: 8, error: '550 5.1.1 no such user', now: DAY })
        await countLinkClicks(t.deps.db, [
          { campaignId: id, link: 'https://shop.example/sale?x=1', clicks: 3 },
          { campaignId: id, link: 'https://blog.example/', clicks: 1 },
        ])
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors }))
        await signIn(page, base, setup.account)
        // Signed out, the console's first GET /console/session answered 401: the browser logs that, and only that.
        consoleErrors.length = 0
        await page.evaluate((hash) => (location.hash = hash), `#/campaigns/${id}`)
        await page.getByRole('heading', { name: /^Report: /, level: 2 }).waitFor()
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      /** The rows of the table captioned `caption`, each as its cells' texts. */
      const rowsOf = (caption: string) =>
        page
          .locator('table', { has: page.locator('caption', { hasText: caption }) })
          .locator('tbody tr')
          .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => (cell.textContent ?? '').trim())))
      const shownEmails = () => page.locator('table', { has: page.locator('caption', { hasText: 'Recipients' }) }).locator('tbody th[scope="row"]').allTextContents()

      it('shows the messages by status, opens by country and clicks by link, and draws the chart of opens and clicks', async () => {
        await page.getByRole('rowheader', { name: 'https://blog.example/' }).waitFor()
        assert.deepEqual(await rowsOf('Messages by status'), [
          ['Delivered', '55'],
          ['Opened', '2'],
          ['Link redirected', '2'],
          ['Unavailable', '1'],
        ])
        assert.deepEqual(await rowsOf('Opens by country'), [
          ['Ukraine (UA)', '2'],
          ['Germany (DE)', '1'],
          ['Poland (PL)', '1'],
        ])
        assert.deepEqual(await rowsOf('Clicks by link'), [
          ['https://shop.example/sale?x=1', '3'],
          ['https://blog.example/', '1'],
        ])
        // The chart: uPlot's canvas, drawn at the figure's width, and its figures as a table (hours with none as 0).
        const canvas = page.locator('figure.chart canvas').first()
        await canvas.waitFor()
        assert.ok(((await canvas.boundingBox())?.width ?? 0) > 100, 'the canvas spans the figure')
        // Some pixel of the canvas is painted (uPlot draws the lines and axes on its next frame).
        await page.waitForFunction(() => {
          const c = document.querySelector<HTMLCanvasElement>('figure.chart canvas')
          return c !== null && c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data.some((v) => v !== 0)
        })
        const chartRows = await page
          .locator('figure.chart details tbody tr')
          .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => (cell.textContent ?? '').trim())))
        assert.deepEqual(chartRows, [
          ['Nov 22, 23:00', '1', '0'],
          ['Nov 23, 00:00', '1', '1'],
          ['Nov 23, 01:00', '2', '1'],
        ])
        await page.getByLabel('Per', { exact: true }).selectOption('day')
        await page.locator('figure.chart details tbody th', { hasText: 'Nov 22, 2026' }).waitFor({ state: 'attached' })
        assert.deepEqual(await page.locator('figure.chart details tbody th').allTextContents(), ['Nov 22, 2026', 'Nov 23, 2026'])
        assert.deepEqual(consoleErrors, [])
      })

      it('pages the recipients 50 at a time and filters them by status, as the API gives them', async () => {
        const api = async (query: string) =>
          (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/recipients?${query}` })).json<{ id: number; email: string }[]>()
        const all = await api('limit=100')
        assert.equal(all.length, RECIPIENTS)
        await page.getByText('Recipients 1–50').waitFor()
        assert.deepEqual(await shownEmails(), all.slice(0, 50).map((r) => r.email))
        assert.match((await rowsOf('Recipients'))[4]!.join(' '), /Unavailable \(550 5\.1\.1 no such user\)/)
        await page.getByRole('button', { name: 'Next page' }).click()
        await page.getByText('Recipients 51–60').waitFor()
        assert.deepEqual(await shownEmails(), all.slice(50).map((r) => r.email))
        assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true)
        await page.getByRole('button', { name: 'Previous page' }).click()
        await page.getByText('Recipients 1–50').waitFor()
        assert.deepEqual(await shownEmails(), all.slice(0, 50).map((r) => r.email))

        await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Link redirected (2)' })
        await page.getByText('Recipients 1–2').waitFor()
        assert.deepEqual(await shownEmails(), (await api('status=4')).map((r) => r.email))
        assert.deepEqual(await shownEmails(), [setup.emails[0], setup.emails[3]])
        assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true)
        await page.getByLabel('Find a recipient by email address').fill(setup.emails[4]!)
        await page.getByRole('button', { name: 'Find', exact: true }).click()
        await page.getByRole('status').getByText(`${setup.emails[4]}: Unavailable`).waitFor()
        // The whole report: its tables, the chart, the filtered recipients and the one found.
        await fitsAndPassesAxe(page, 'the report')
        assert.deepEqual(consoleErrors, [])
      })
    })
  }
})
