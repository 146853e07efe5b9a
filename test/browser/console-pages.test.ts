// The Senders, Blacklist, Balance and Outbox pages of the web console in Chromium, on both databases: each page's
// main flow, checked through the API after the UI action; a hostile captured message (a <script>, an onerror
// image, a remote image, a link back to the console) rendered from its body page without running anything or fetching
// anything, then with its remote images (and nothing else) after "Load remote images", and opened in a tab of its own;
// axe-core and no sideways scrolling at 375 and 1440 px on each page. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { fitsAndPassesAxe, openPage, seriousAxeViolations, sharedConsoleBrowser, signIn, cspViolationsOf, recordCspViolations } from '../helpers/browser.js'
import * as accounts from '../../src/services/accounts/accounts.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000

/** What a hostile tenant's campaign could carry: every line would leave a trace if it ran or loaded. */
const hostileHtml = (remote: string, consoleBase: string) =>
  [
    '<h1 id="greeting">Hello from the message</h1>',
    '<script>document.body.insertAdjacentHTML("beforeend", "<p id=ran>script ran</p>")</script>',
    `<img alt="broken" src="x" onerror="document.body.insertAdjacentHTML('beforeend', '<p id=ran>onerror ran</p>')">`,
    `<img alt="pixel" src="${remote}/pixel.png">`,
    `<div style="background:url(${remote}/background.png)">styled</div>`,
    `<link rel="stylesheet" href="${remote}/style.css">`,
    `<img alt="session" src="${consoleBase}/console/session?from=message">`,
    `<a href="${consoleBase}/console/?from=message">a link back to the console</a>`,
  ].join('\n')

describe('the senders, blacklist, balance and outbox pages of the web console in Chromium', () => {
  const chromium = sharedConsoleBrowser()
  /** A remote host on loopback: the outbox page must never fetch from it. */
  let remote: Server
  const remoteRequests: string[] = []
  before(async () => {
    remote = createServer((request, response) => {
      remoteRequests.push(request.url ?? '')
      response.end()
    })
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve))
  })
  after(async () => {
    await new Promise((resolve) => remote?.close(resolve))
  })

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let base: string
      let account: TestAccount
      let context: BrowserContext
      let page: Page
      /** Every request the console's server receives: none may come from the message. */
      const served: string[] = []
      /** Those that carried a cookie. */
      const servedWithCookie: string[] = []

      const open = (title: string) => openPage(page, title)

      before(async () => {
        t = await startTestApp(dialect)
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        t.app.server.on('request', (request: { url?: string; headers: Record<string, unknown> }) => {
          served.push(request.url ?? '')
          if (request.headers['cookie'] !== undefined) servedWithCookie.push(request.url ?? '')
        })
        account = await t.account('Pages Test Ltd')
        context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } })
        context.setDefaultTimeout(WAIT_MS)
        await recordCspViolations(context)
        page = await context.newPage()
        await signIn(page, base, account)
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      it('adds a sender, emails it a code, refuses a wrong code with the API message, activates it, and deletes it after confirming', async () => {
        await open('Senders')
        await page.getByText('No senders yet').waitFor()
        await page.getByLabel('Sender name').fill('News Desk')
        await page.getByLabel('Sender email').fill('news@example.com')
        await page.getByRole('button', { name: 'Add sender' }).click()
        await page.getByRole('row', { name: /news@example.com News Desk Not active/ }).waitFor()
        const senders = async () => (await t.call(account, { method: 'GET', url: '/senders' })).json<{ email: string; name: string; status: string }[]>()
        assert.deepEqual((await senders()).map((s) => [s.email, s.name, s.status]), [['news@example.com', 'News Desk', 'Not active']])

        await page.getByRole('button', { name: 'Send an activation code to news@example.com' }).click()
        await page.getByRole('status').getByText('An activation code was emailed to news@example.com.').waitFor()
        const message = await t.deps.db.selectFrom('outbox').select('text').where('account_id', '=', account.id).where('kind', '=', 'sender_code').executeTakeFirstOrThrow()
        const code = /\b(\d{6,})\b/.exec(message.text)![1]!

        await page.getByRole('button', { name: 'Enter the activation code of news@example.com' }).click()
        const dialog = page.getByRole('dialog', { name: 'Activate news@example.com' })
        await dialog.getByLabel(/Activation code/).fill(code === '11111111' ? '22222222' : '11111111')
        await dialog.getByRole('button', { name: 'Activate' }).click()
        await dialog.getByRole('alert').waitFor()
        assert.match((await dialog.getByRole('alert').textContent()) ?? '', /code/i)
        assert.equal((await senders())[0]!.status, 'Not active')
        assert.deepEqual(await seriousAxeViolations(page), [], 'with the dialog open')
        await dialog.getByLabel(/Activation code/).fill(code)
        await dialog.getByRole('button', { name: 'Activate' }).click()
        await page.getByRole('row', { name: /news@example.com News Desk Active/ }).waitFor()
        assert.equal((await senders())[0]!.status, 'Active')
        await fitsAndPassesAxe(page, 'senders')

        await page.getByRole('button', { name: 'Delete news@example.com' }).click()
        const confirm = page.getByRole('dialog', { name: 'Delete news@example.com?' })
        await confirm.getByRole('button', { name: 'Cancel' }).click()
        assert.equal((await senders()).length, 1, 'cancelled: nothing deleted')
        await page.getByRole('button', { name: 'Delete news@example.com' }).click()
        await confirm.getByRole('button', { name: 'Delete sender' }).click()
        await page.getByText('No senders yet').waitFor()
        assert.deepEqual(await senders(), [])
      })

      it('shows the API message when a sender is refused', async () => {
        await page.getByLabel('Sender name').fill('Twice')
        await page.getByLabel('Sender email').fill('twice@example.com')
        await page.getByRole('button', { name: 'Add sender' }).click()
        await page.getByRole('row', { name: /twice@example.com/ }).waitFor()
        await page.getByLabel('Sender name').fill('Twice')
        await page.getByLabel('Sender email').fill('twice@example.com')
        await page.getByRole('button', { name: 'Add sender' }).click()
        const refused = await t.call(account, { method: 'POST', url: '/senders', payload: { email: 'twice@example.com', name: 'Twice' } })
        assert.equal(refused.statusCode >= 400 && refused.statusCode < 500, true)
        await page.getByRole('alert').getByText(refused.json<{ message: string }>().message).waitFor()
      })

      it('blacklists two addresses with a comment and removes one', async () => {
        await open('Blacklist')
        await page.getByText('The blacklist is empty.').waitFor()
        await page.getByLabel(/^Addresses/).fill('spam@example.com,\nangry@example.org')
        await page.getByLabel('Comment (optional)').fill('asked by phone')
        await page.getByRole('button', { name: 'Add to blacklist' }).click()
        await page.getByRole('status').getByText('2 addresses blacklisted.').waitFor()
        const listed = async () => (await t.call(account, { method: 'GET', url: '/blacklist' })).json<string[]>()
        assert.deepEqual((await listed()).sort(), ['angry@example.org', 'spam@example.com'])
        const comments = await t.deps.db.selectFrom('email_blacklist').select('comment').where('account_id', '=', account.id).execute()
        assert.deepEqual(comments.map((c) => c.comment), ['asked by phone', 'asked by phone'])
        await fitsAndPassesAxe(page, 'blacklist')

        await page.getByRole('button', { name: 'Remove spam@example.com from the blacklist' }).click()
        await page.getByRole('status').getByText('spam@example.com removed from the blacklist.').waitFor()
        assert.deepEqual(await listed(), ['angry@example.org'])
        assert.equal(await page.getByRole('listitem').filter({ hasText: 'spam@example.com' }).count(), 0)
      })

      it('shows the balance and its ledger entries, newest first', async () => {
        await accounts.creditAccount(t.deps, account.id, '12.5')
        await open('Balance')
        await page.getByText('112.50 USD').waitFor()
        const rows = page.locator('tbody tr')
        await rows.first().waitFor()
        assert.deepEqual(
          (await rows.allTextContents()).map((row) => row.replace(/^[\d-]+ [\d:]+/, '')),
          ['Credit12.50 USDoperator credit', 'Credit100.00 USDinitial balance'],
        )
        await fitsAndPassesAxe(page, 'balance')
      })

      it('opens a hostile captured message as a mail client shows it, running nothing, fetching remote images only when asked', async () => {
        const remoteBase = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`
        // The remote host is shared by both databases' runs: this one's requests alone count.
        remoteRequests.length = 0
        const html = hostileHtml(remoteBase, base)
        const now = t.clock.now
        const { id } = await t.deps.db
          .insertInto('outbox')
          .values({
            account_id: account.id,
            kind: 'campaign',
            from_email: 'news@example.com',
            from_name: 'News Desk',
            to_email: 'reader@example.com',
            subject: 'Hostile newsletter',
            html,
            text: 'Hello in plain text',
            shown_subject: 'Hostile newsletter',
            shown_html: html,
            shown_text: 'Hello in plain text',
            status: 'captured',
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
        await open('Outbox')
        await fitsAndPassesAxe(page, 'outbox')
        await page.getByRole('button', { name: 'Hostile newsletter' }).click()
        await page.getByRole('heading', { name: 'Hostile newsletter', level: 1 }).waitFor()
        for (const header of ['News Desk <news@example.com>', 'reader@example.com']) await page.getByText(header, { exact: true }).waitFor()
        await page.getByText('Remote images and styles in this message are blocked.').waitFor()

        const frame = page.frameLocator('iframe[title="Message body (HTML)"]')
        const bodyFrame = async (images: boolean) => {
          await frame.getByRole('heading', { name: 'Hello from the message' }).waitFor()
          const found = page.frames().find((f) => f.url() === `${base}/outbox/${id}/body${images ? '?images=true' : ''}`)
          assert.ok(found, `the message frame (images: ${images}): ${page.frames().map((f) => f.url()).join(', ')}`)
          // The frame's load event waits for every image and stylesheet of its document to load or fail.
          await found.waitForLoadState('load')
        }
        await bodyFrame(false)
        assert.equal(await page.locator('iframe').getAttribute('sandbox'), '', 'sandboxed with no allow-* token')
        // The onerror image has failed to load by now (src="x" is refused at once): a handler that ran would have written.
        await frame.getByRole('img', { name: 'broken' }).waitFor({ state: 'attached' })
        assert.equal(await frame.locator('#ran').count(), 0, 'neither the script nor the onerror handler ran')
        assert.deepEqual(remoteRequests, [], 'no remote image, background or stylesheet fetched')
        assert.deepEqual(served.filter((url) => url.includes('from=message')), [], 'nothing of the message reached the console origin')
        await fitsAndPassesAxe(page, 'an open message')

        // The reader asks for the images: the page is loaded again with them allowed, and nothing else.
        await page.getByRole('button', { name: 'Load remote images' }).click()
        await page.getByText('Remote images are shown; remote styles and fonts stay blocked.').waitFor()
        await bodyFrame(true)
        assert.equal(await frame.locator('#ran').count(), 0, 'still nothing ran')
        const fetched: string[] = [...remoteRequests]
        assert.ok(fetched.includes('/pixel.png'), `the remote image was fetched: ${fetched.join(', ')}`)
        assert.deepEqual(fetched.filter((url) => !['/pixel.png', '/background.png'].includes(url)), [], 'images only: no stylesheet')
        // An image on the console's own origin is an image like any other, but the frame's origin is opaque: it is
        // fetched as from another site, without the SameSite=Strict session cookie, so it is no signed-in request.
        assert.deepEqual(served.filter((url) => url.includes('from=message')), ['/console/session?from=message'], 'the image alone, not the link')
        assert.deepEqual(servedWithCookie.filter((url) => url.includes('from=message')), [], 'without the session cookie')
        await fitsAndPassesAxe(page, 'an open message with its images')

        // Opened in a tab of its own (a link to it, say), the page is still sandboxed by its own policy: nothing runs.
        const tab = await context.newPage()
        await tab.goto(`${base}/outbox/${id}/body`)
        await tab.getByRole('heading', { name: 'Hello from the message' }).waitFor()
        await tab.waitForLoadState('load')
        assert.equal(await tab.locator('#ran').count(), 0, 'nothing ran in a tab either')
        await tab.close()

        await page.getByRole('tab', { name: 'Text' }).click()
        await page.getByText('Hello in plain text').waitFor()
        assert.equal(await page.getByRole('tab', { name: 'Text' }).getAttribute('aria-selected'), 'true')
        // The console itself breaks no rule of its policy: only the message's frame is refused things.
        assert.deepEqual(await cspViolationsOf(page), [])
        assert.equal(await page.evaluate(() => document.querySelectorAll('#ran').length), 0)
      })
    })
  }
})
