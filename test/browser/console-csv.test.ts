// CSV import and export on a list's contacts page of the web console, in Chromium on both databases: a file of 1,000
// rows (invalid addresses, a blacklisted one, a value that breaks its variable's type, a row too wide, a blank line,
// quoted fields) moves the progress bar per batch answered up to 100 %, the skipped rows are listed with their lines
// and reasons, the list holds the rest with their variables; the export downloads a CSV whose rows are the list's;
// axe-core on the import dialog, and no sideways scrolling at 375 px. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { openConsoleTab, scrollsSideways, seriousAxeViolations, sharedConsoleBrowser } from '../helpers/browser.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 20_000
const ROWS = 1000

const address = (i: number) => `member${String(i).padStart(4, '0')}@example.com`
/** Data row i is on line i + 2 (the header is line 1), and one line further after the blank line before row 600. */
const lineOf = (i: number) => i + 2 + (i >= 600 ? 1 : 0)
const INVALID = new Set([7, 107, 207, 307, 407, 507, 607, 707, 807, 907])
const BLACKLISTED = 42
const BAD_AGE = 555
const TOO_WIDE = 777

/** Email, a name with a comma (quoted), an age: a number variable already declared on the list. */
function importFile(): string {
  const lines = ['Email,Full name,age']
  for (let i = 0; i < ROWS; i++) {
    if (i === 600) lines.push('')
    const email = INVALID.has(i) ? `member${i}-at-example.com` : address(i)
    if (i === TOO_WIDE) lines.push(`${email},Wide,1,surplus`)
    else lines.push(`${email},"Member, No. ${i}",${i === BAD_AGE ? 'old' : 20 + (i % 50)}`)
  }
  return lines.join('\r\n') + '\r\n'
}

describe('CSV import and export of a list in the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let base: string
      let account: TestAccount
      let listId: number
      let context: BrowserContext
      let page: Page
      const consoleErrors: string[] = []

      before(async () => {
        t = await startTestApp(dialect)
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        account = await t.account('CSV Test Ltd')
        listId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Members' } })).json<{ id: number }>().id
        // Declares `age` a number: the import's "old" then breaks its type, and the API refuses that row's whole batch.
        const seed = await t.call(account, { method: 'POST', url: `/addressbooks/${listId}/emails`, payload: { emails: [{ email: 'seed@example.com', variables: { age: 30 } }] } })
        assert.equal(seed.statusCode, 200)
        const blacklisted = await t.call(account, { method: 'POST', url: '/blacklist', payload: { emails: Buffer.from(address(BLACKLISTED)).toString('base64') } })
        assert.equal(blacklisted.statusCode, 200)
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors, options: { acceptDownloads: true } }))
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      const listedContacts = async () => {
        const all: { email: string; status_explain: string; variables: Record<string, string | number> }[] = []
        for (;;) {
          const batch = (await t.call(account, { method: 'GET', url: `/addressbooks/${listId}/emails?limit=100&offset=${all.length}` })).json<typeof all>()
          all.push(...batch)
          if (batch.length < 100) return all
        }
      }

      it('imports 1,000 rows: the bar advances per batch answered to 100 %, the skipped rows are listed with their lines', async () => {
        await page.goto(`${base}/console/#/lists/${listId}`)
        await page.getByLabel('Client ID').fill(account.clientId)
        await page.getByLabel('Client secret').fill(account.clientSecret)
        await page.getByRole('button', { name: 'Sign in', exact: true }).click()
        await page.getByText('1 contacts, 1 active.').waitFor()
        await page.getByRole('button', { name: 'Import CSV' }).click()
        const dialog = page.getByRole('dialog', { name: 'Import contacts from CSV' })
        await dialog.getByText('every other column becomes a variable').waitFor()
        assert.deepEqual(await seriousAxeViolations(page), [], 'the import dialog')
        await dialog.getByLabel('CSV file').setInputFiles({ name: 'members.csv', mimeType: 'text/csv', buffer: Buffer.from(importFile()) })
        // Every value the bar takes, as the page sets it.
        await page.evaluate(() => {
          const seen: string[] = []
          ;(window as unknown as { barValues: string[] }).barValues = seen
          new MutationObserver((changes) => {
            const bars = changes.flatMap((change) => [change.target, ...change.addedNodes]).filter((node): node is Element => node instanceof Element)
            for (const bar of bars.flatMap((node) => [node, ...node.querySelectorAll('[aria-valuenow]')])) {
              const value = bar.getAttribute('aria-valuenow')
              if (value !== null && seen.at(-1) !== value) seen.push(value)
            }
          }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] })
        })
        await dialog.getByRole('button', { name: 'Import', exact: true }).click()
        const bar = dialog.getByRole('progressbar', { name: 'Import progress' })
        await dialog.getByText('Done: 1,000 rows read, 13 skipped, 987 added or updated.').waitFor()
        assert.equal(await bar.getAttribute('aria-valuenow'), '100')
        // 999 rows sent (the too-wide one never is): 500 answered, then all.
        assert.deepEqual(await page.evaluate(() => (window as unknown as { barValues: string[] }).barValues), ['0', '50', '100'])

        const skipped = await dialog.getByRole('list', { name: 'Skipped rows' }).getByRole('listitem').allTextContents()
        const expected = [
          ...[...INVALID].map((i) => [lineOf(i), `Line ${lineOf(i)}: "member${i}-at-example.com" is not a valid email address`] as const),
          [lineOf(BLACKLISTED), `Line ${lineOf(BLACKLISTED)}: ${address(BLACKLISTED)} is on the blacklist`] as const,
          [lineOf(BAD_AGE), `Line ${lineOf(BAD_AGE)}: Variable "age" is of type number and accepts only numbers, got "old"`] as const,
          [lineOf(TOO_WIDE), `Line ${lineOf(TOO_WIDE)}: 4 fields where the header has 3`] as const,
        ]
        assert.deepEqual(skipped, expected.sort((a, b) => a[0] - b[0]).map(([, text]) => text))
        assert.deepEqual(await seriousAxeViolations(page), [], 'the import dialog with its report')
        await page.setViewportSize({ width: 375, height: 800 })
        assert.equal(await scrollsSideways(page), false, 'the report at 375 px')
        await page.setViewportSize({ width: 1440, height: 900 })

        await dialog.getByRole('button', { name: 'Close' }).click()
        // 1,000 rows less the 13 skipped, plus the seed contact.
        await page.getByText('988 contacts, 988 active.').waitFor()
        const book = (await t.call(account, { method: 'GET', url: `/addressbooks/${listId}` })).json<{ all_email_qty: number }[]>()[0]
        assert.equal(book?.all_email_qty, 988)
        const one = (await t.call(account, { method: 'GET', url: `/addressbooks/${listId}/emails/${address(12)}` })).json<{ variables: { name: string; type: string; value: string }[] }>()
        assert.deepEqual(
          one.variables.map((v) => [v.name, v.type, v.value]).sort(),
          [
            ['Full name', 'string', 'Member, No. 12'],
            ['age', 'number', '32'],
          ],
        )
        const listed = await listedContacts()
        const expectedEmails = ['seed@example.com', ...Array.from({ length: ROWS }, (_, i) => i).filter((i) => !INVALID.has(i) && ![BLACKLISTED, BAD_AGE, TOO_WIDE].includes(i)).map(address)]
        assert.deepEqual(listed.map((c) => c.email).sort(), expectedEmails.sort())
        assert.equal(listed.find((c) => c.email === address(999))?.variables.age, 69)
      })

      it('exports every contact of the list into a downloaded CSV whose rows are the list’s', async () => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
        assert.equal(download.suggestedFilename(), 'Members-contacts.csv')
        await page.getByText('988 contacts exported.').waitFor()
        const text = readFileSync((await download.path())!, 'utf8')
        assert.ok(text.startsWith('\ufeffemail,status,'), 'a BOM, then the header')
        const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[]
        const listed = await listedContacts()
        assert.deepEqual(
          rows,
          listed.map((c) => ({ email: c.email, status: c.status_explain, age: String(c.variables.age ?? ''), 'Full name': String(c.variables['Full name'] ?? '') })),
        )
        assert.equal(rows.length, 988)
        assert.deepEqual(consoleErrors.filter((e) => /Content Security Policy/i.test(e)), [])
      })

      it('exports a list through the account’s request limit, waiting out its 429s', async () => {
        // 1 call a second, 6 at once: the set-up and the page's own calls take the burst, the export's 3 pages meet the
        // limit; the test clock stands still until the export starts, then runs 10 times faster than the real one.
        const limited = await startTestApp(dialect, { apiRatePerSecond: 1, apiBurst: 6 })
        let ticking: NodeJS.Timeout | undefined
        const limitedContext = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })
        try {
          limitedContext.setDefaultTimeout(WAIT_MS)
          const limitedBase = await limited.app.listen({ port: 0, host: '127.0.0.1' })
          const owner = await limited.account('Limited Ltd')
          const id = (await limited.call(owner, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Limited' } })).json<{ id: number }>().id
          const emails = Array.from({ length: 250 }, (_, i) => address(i))
          assert.equal((await limited.call(owner, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails } })).statusCode, 200)
          const tab = await limitedContext.newPage()
          await tab.goto(`${limitedBase}/console/#/lists/${id}`)
          await tab.getByLabel('Client ID').fill(owner.clientId)
          await tab.getByLabel('Client secret').fill(owner.clientSecret)
          await tab.getByRole('button', { name: 'Sign in', exact: true }).click()
          await tab.getByText('250 contacts, 250 active.').waitFor()
          ticking = setInterval(() => limited.clock.advance(1000), 100)
          const [download] = await Promise.all([tab.waitForEvent('download'), tab.getByRole('button', { name: 'Export CSV' }).click()])
          const rows = parse(readFileSync((await download.path())!, 'utf8'), { bom: true, columns: true }) as Record<string, string>[]
          assert.deepEqual(rows.map((r) => r.email), emails)
        } finally {
          clearInterval(ticking)
          await limitedContext.close()
          await limited.close()
        }
      })
    })
  }
})
