// The web console in a real browser (Debian's Chromium through playwright-core) against the test app listening on
// loopback: sign-in (wrong, then right), the session cookie's flags, nothing in web storage, the Lists page (create,
// rename, delete after confirming), a cross-site request refused and without effect, sign-out ending access,
// axe-core on every built page, and no sideways scrolling at 375 and 1440 px. Needs the built console
// (`npm run build`: dist/console).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { openConsoleTab, scrollsSideways, seriousAxeViolations, sharedConsoleBrowser } from '../helpers/browser.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
const WIDTHS = [375, 1440]

describe('the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let base: string
      let account: TestAccount
      let context: BrowserContext
      let page: Page
      /** What the page logged as errors: a CSP violation would show here. */
      const consoleErrors: string[] = []

      before(async () => {
        t = await startTestApp(dialect)
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        account = await t.account('Browser Test Ltd')
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors }))
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      const listNames = async () => (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ name: string }[]>().map((b) => b.name)

      it('serves the sign-in page under the strict CSP; a wrong secret says so without naming the field', async () => {
        const response = await page.goto(`${base}/console/`)
        const headers = response?.headers() ?? {}
        assert.equal(
          headers['content-security-policy'],
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        )
        assert.equal(headers['x-frame-options'], 'DENY')
        assert.equal(headers['x-content-type-options'], 'nosniff')
        assert.equal(headers['referrer-policy'], 'no-referrer')
        assert.equal(headers['cross-origin-opener-policy'], 'same-origin')
        await page.getByLabel('Client ID').fill(account.clientId)
        await page.getByLabel('Client secret').fill('not the secret')
        await page.getByRole('button', { name: 'Sign in', exact: true }).click()
        const alert = page.getByRole('alert')
        await alert.waitFor()
        assert.equal(await alert.textContent(), 'Sign-in failed: these credentials do not match an enabled account.')
        assert.deepEqual(await seriousAxeViolations(page), [])
      })

      it('signs in with the right secret into an HttpOnly, SameSite=Strict cookie and keeps nothing in web storage', async () => {
        await page.getByLabel('Client secret').fill(account.clientSecret)
        await page.getByRole('button', { name: 'Sign in', exact: true }).click()
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
        await page.getByRole('button', { name: 'Sign out' }).waitFor()
        const cookies = await context.cookies()
        assert.equal(cookies.length, 1)
        assert.equal(cookies[0]!.name, 'tidings_console')
        assert.equal(cookies[0]!.httpOnly, true)
        assert.equal(cookies[0]!.sameSite, 'Strict')
        assert.equal(cookies[0]!.expires, -1, 'a session cookie, gone with the browser')
        const storage = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }))
        assert.deepEqual(storage, { local: 0, session: 0, cookie: '' })
      })

      it('creates, renames and (after confirming) deletes a list through the public API', async () => {
        await page.getByRole('link', { name: 'Lists' }).click()
        await page.getByLabel('New list name').fill('Newsletter')
        await page.getByRole('button', { name: 'Create list' }).click()
        const row = page.getByRole('row', { name: /Newsletter/ })
        await row.waitFor()
        assert.deepEqual(await listNames(), ['Newsletter'])

        await page.getByRole('button', { name: 'Rename Newsletter' }).click()
        const rename = page.getByRole('dialog', { name: 'Rename “Newsletter”' })
        await rename.getByLabel('New name').fill('Weekly news')
        await rename.getByRole('button', { name: 'Save name' }).click()
        await page.getByRole('row', { name: /Weekly news/ }).waitFor()
        assert.deepEqual(await listNames(), ['Weekly news'])

        await page.getByRole('button', { name: 'Delete Weekly news' }).click()
        const confirm = page.getByRole('dialog', { name: 'Delete “Weekly news”?' })
        await confirm.getByRole('button', { name: 'Cancel' }).click()
        assert.deepEqual(await listNames(), ['Weekly news'], 'cancelled: nothing deleted')
        await page.getByRole('button', { name: 'Delete Weekly news' }).click()
        await confirm.getByRole('button', { name: 'Delete list' }).click()
        await page.getByText('No lists yet').waitFor()
        assert.deepEqual(await listNames(), [])

        await page.getByLabel('New list name').fill('Customers')
        await page.getByRole('button', { name: 'Create list' }).click()
        await page.getByRole('row', { name: /Customers/ }).waitFor()
        assert.deepEqual(await seriousAxeViolations(page), [])
      })

      it('opens every page of the navigation on its own heading, and an unknown page on the Dashboard', async () => {
        const titles = await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link').allTextContents()
        assert.ok(titles.length >= 11, `the navigation names every page: ${titles.join(', ')}`)
        for (const title of titles) {
          await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: title, exact: true }).click()
          await page.getByRole('heading', { name: title, level: 1 }).waitFor()
        }
        await page.goto(`${base}/console/#/no-such-page`)
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
        await page.getByRole('link', { name: 'Lists', exact: true }).click()
        await page.getByRole('row', { name: /Customers/ }).waitFor()
      })

      it('fits 375 and 1440 px without sideways scrolling, signed in and signed out, and is usable by keyboard', async () => {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 })
          assert.equal(await scrollsSideways(page), false, `Lists at ${width} px`)
        }
        const signedOut = await chromium.browser.newPage()
        try {
          await signedOut.goto(`${base}/console/`)
          await signedOut.getByLabel('Client ID').waitFor({ timeout: WAIT_MS })
          for (const width of WIDTHS) {
            await signedOut.setViewportSize({ width, height: 800 })
            assert.equal(await scrollsSideways(signedOut), false, `sign-in at ${width} px`)
          }
        } finally {
          await signedOut.close()
        }
        // Narrow, the navigation folds behind "Menu", which the keyboard opens; a link there leads to its page.
        await page.setViewportSize({ width: 375, height: 800 })
        const menu = page.getByRole('button', { name: 'Menu: Lists' })
        assert.equal(await menu.getAttribute('aria-expanded'), 'false')
        await menu.focus()
        await page.keyboard.press('Enter')
        assert.equal(await menu.getAttribute('aria-expanded'), 'true')
        await page.keyboard.press('Tab')
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Dashboard')
        await page.keyboard.press('Enter')
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
        assert.equal(await scrollsSideways(page), false, 'Dashboard at 375 px')
        await page.goto(`${base}/console/#/lists`)
        await page.getByRole('row', { name: /Customers/ }).waitFor()
        await page.setViewportSize({ width: 1440, height: 900 })
      })

      it('refuses a cross-site request: another site’s page cannot use the session, and the cookie without the CSRF header gets 403', async () => {
        // Another site (localhost is not 127.0.0.1) posts to the API in the signed-in browser.
        const attacker = await serveAttackerPage()
        try {
          const evil = await context.newPage()
          await evil.goto(attacker.url)
          await evil.evaluate(async (target) => {
            await fetch(`${target}/addressbooks`, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"bookName":"evil"}' }).catch(() => undefined)
          }, base)
          await evil.close()
        } finally {
          attacker.server.close()
        }
        // Even holding the cookie (stolen, or attached by a same-site page), a request without the token is refused.
        const cookie = (await context.cookies())[0]!
        const forged = await fetch(`${base}/addressbooks`, {
          method: 'POST',
          headers: { cookie: `${cookie.name}=${cookie.value}`, 'content-type': 'application/json' },
          body: JSON.stringify({ bookName: 'evil' }),
        })
        assert.equal(forged.status, 403)
        assert.deepEqual(await forged.json(), { error_code: 403, message: 'A console session needs its CSRF token in the X-CSRF-Token header' })
        assert.deepEqual(await listNames(), ['Customers'])
      })

      it('signs out: the form comes back and the old cookie gets 401 from the API at once', async () => {
        const cookie = (await context.cookies())[0]!
        const csrfToken = await page.evaluate(async () => ((await (await fetch('/console/session')).json()) as { csrf_token: string }).csrf_token)
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
        assert.deepEqual(await context.cookies(), [])
        const replayed = await fetch(`${base}/addressbooks`, { headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': csrfToken } })
        assert.equal(replayed.status, 401)
        assert.deepEqual(await replayed.json(), { error_code: 401, message: 'Invalid, expired or missing access token' })
        assert.deepEqual(consoleErrors.filter((e) => /Content Security Policy/i.test(e)), [])
      })
    })
  }
})

/** A page on another site (http://localhost:…, where the console is at 127.0.0.1). */
async function serveAttackerPage(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => response.end('<!doctype html><title>elsewhere</title>'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { server, url: `http://localhost:${port}/` }
}
