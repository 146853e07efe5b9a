// The Templates pages of the web console in Chromium, on both databases: the gallery of own and system templates
// with their previews; the editor (a new template whose preview follows the typed HTML and whose variables are
// listed, saved, then edited; a copy of a system template); a test send, refused with the API's message from a
// sender that is not active, then delivered to the sender; a hostile template (script, onerror, remote and
// same-origin loads, a refresh, a nested frame) shown in the gallery and the editor without running or fetching
// anything; axe-core and no sideways scrolling at 375 and 1440 px. Every result is checked through the API.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { fitsAndPassesAxe, launchConsoleBrowser, signIn, cspViolationsOf, recordCspViolations } from '../helpers/browser.js'
import { activeSender } from '../helpers/senders.js'
import { dispatcher } from '../helpers/campaigns.js'
import { captureChannel } from '../../src/delivery/email/capture.js'

const WAIT_MS = 10_000

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

/** Each line would leave a trace if it ran (#ran) or loaded (a request to the remote host or back to the console). */
const hostileHtml = (remote: string, consoleBase: string) =>
  [
    `<meta http-equiv="refresh" content="0;url=${remote}/refresh">`,
    '<h1>Hello from the template</h1>',
    '<script>document.body.insertAdjacentHTML("beforeend", "<p id=ran>script ran</p>")</script>',
    `<img alt="broken" src="x" onerror="document.body.insertAdjacentHTML('beforeend', '<p id=ran>onerror ran</p>')">`,
    `<img alt="pixel" src="${remote}/pixel.png">`,
    `<div style="background:url(${remote}/background.png)">styled</div>`,
    `<link rel="stylesheet" href="${remote}/style.css">`,
    `<img alt="session" src="${consoleBase}/console/session?from=template">`,
    `<img alt="templates" src="${consoleBase}/templates?from=template">`,
    `<iframe title="nested" src="${consoleBase}/console/?from=template"></iframe>`,
  ].join('\n')

interface WireTemplate {
  real_id: number
  name: string
  lang: string
  owner: string
  body: string
}

describe('the templates pages of the web console in Chromium', () => {
  let browser: Browser
  let remote: Server
  const remoteRequests: string[] = []
  before(async () => {
    browser = await launchConsoleBrowser()
    remote = createServer((request, response) => {
      remoteRequests.push(request.url ?? '')
      response.end()
    })
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve))
  })
  after(async () => {
    await browser?.close()
    await new Promise((resolve) => remote?.close(resolve))
  })

  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let t: TestApp
      let base: string
      let account: TestAccount
      let context: BrowserContext
      let page: Page
      const served: string[] = []

      const gallery = async () => {
        await page.goto(`${base}/console/#/templates`)
        await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor()
      }
      const ownTemplates = async () => (await t.call(account, { method: 'GET', url: '/templates?owner=me' })).json<WireTemplate[]>()
      const htmlOf = async (id: number) => Buffer.from((await t.call(account, { method: 'GET', url: `/template/${id}` })).json<WireTemplate>().body, 'base64').toString('utf8')
      const preview = () => page.frameLocator('iframe[title="Template preview"]')

      before(async () => {
        t = await startTestApp(dialect)
        base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        t.app.server.on('request', (request: { url?: string }) => served.push(request.url ?? ''))
        account = await t.account('Templates Test Ltd')
        context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
        context.setDefaultTimeout(WAIT_MS)
        await recordCspViolations(context)
        page = await context.newPage()
        await signIn(page, base, account)
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      it('shows the own and the system templates as a gallery, each with its preview', async () => {
        const made = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Spring sale', body: base64('<h1>Spring sale for {{name}}</h1>') } })
        assert.equal(made.statusCode, 200, made.body)
        await page.getByRole('link', { name: 'Templates', exact: true }).click()
        await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor()

        const own = page.getByRole('list', { name: 'Your templates' })
        await own.getByRole('link', { name: 'Spring sale' }).waitFor()
        await page.frameLocator('iframe[title="Preview of Spring sale"]').getByRole('heading', { name: 'Spring sale for {{name}}' }).waitFor()
        const system = page.getByRole('list', { name: 'System templates' })
        await system.getByRole('link', { name: 'Welcome', exact: true }).waitFor()
        const systemNames = (await t.call(account, { method: 'GET', url: '/templates' })).json<WireTemplate[]>().map((s) => s.name)
        assert.deepEqual(await system.getByRole('heading', { level: 3 }).allTextContents(), systemNames)
        assert.ok(systemNames.length >= 3)
        // The system previews are SVG images of this origin, loaded (the CSP's img-src allows 'self').
        const images = await system.locator('img').evaluateAll((imgs) => imgs.map((img) => [(img as HTMLImageElement).getAttribute('src'), (img as HTMLImageElement).naturalWidth]))
        assert.equal(images.length, systemNames.length)
        for (const [src, width] of images) {
          assert.match(String(src), /^\/template-previews\/[a-z0-9-]+\.svg$/)
          assert.ok(Number(width) > 0, `${src} loaded`)
        }
        await fitsAndPassesAxe(page, 'the gallery')
      })

      it('creates a template in the editor: the preview follows the typed HTML, its variables are listed; then edits it', async () => {
        await gallery()
        await page.getByRole('link', { name: 'New template' }).click()
        await page.getByRole('heading', { name: 'New template', level: 1 }).waitFor()
        await page.getByLabel('Name', { exact: true }).fill('Autumn news')
        const html = '<h1>Autumn news for {{name}}</h1><p>{{#if city}}In {{city}}{{/if}} <a href="{{unsubscribe_url}}">Leave</a></p>'
        await page.getByLabel('HTML', { exact: true }).fill(html)
        await preview().getByRole('heading', { name: 'Autumn news for {{name}}' }).waitFor()
        const variables = page.getByRole('list', { name: 'Variables the HTML uses' }).getByRole('listitem')
        assert.deepEqual(await variables.allTextContents(), ["{{name}} from the contact's variables", "{{city}} from the contact's variables", '{{unsubscribe_url}} filled by Tidings'])
        // No sender and no list yet: the test send says what it needs instead of a form.
        await page.getByRole('link', { name: 'add one on the Senders page' }).waitFor()
        await page.getByRole('link', { name: 'create one on the Lists page' }).waitFor()
        assert.equal(await page.getByRole('button', { name: 'Send a test' }).count(), 0)
        await fitsAndPassesAxe(page, 'the new template editor')

        await page.getByRole('button', { name: 'Create template' }).click()
        await page.getByRole('status').getByText('Template “Autumn news” created.').waitFor()
        await page.getByRole('heading', { name: 'Autumn news', level: 1 }).waitFor()
        const created = (await ownTemplates()).find((s) => s.name === 'Autumn news')
        assert.ok(created, 'created through the API')
        assert.equal(new URL(page.url()).hash, `#/templates/${created.real_id}`)
        assert.deepEqual([created.lang, await htmlOf(created.real_id)], ['en', html])

        const edited = '<h1>Autumn news, edited</h1><p>Für {{ first_name }}</p>'
        await page.getByLabel('HTML', { exact: true }).fill(edited)
        await preview().getByRole('heading', { name: 'Autumn news, edited' }).waitFor()
        assert.deepEqual(await variables.allTextContents(), ["{{first_name}} from the contact's variables"])
        await page.getByRole('button', { name: 'Save template' }).click()
        await page.getByRole('status').getByText('Template “Autumn news” saved.').waitFor()
        assert.equal(await htmlOf(created.real_id), edited)
        assert.equal((await ownTemplates()).filter((s) => s.name === 'Autumn news').length, 1, 'saved in place, not copied')
      })

      it("applies a template's inline styles in its thumbnail and in the editor's live preview", async () => {
        const styled = (color: string) => `<p id="inline" style="color: ${color}">Inline</p><style>#sheet { color: ${color} }</style><p id="sheet">Sheet</p>`
        const made = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Styled', body: base64(styled('rgb(255, 0, 0)')) } })
        assert.equal(made.statusCode, 200, made.body)
        const colorsIn = async (frame: ReturnType<Page['frameLocator']>) => {
          await frame.locator('#sheet').waitFor()
          return Promise.all(['#inline', '#sheet'].map((selector) => frame.locator(selector).evaluate((el) => getComputedStyle(el).color)))
        }
        await gallery()
        assert.deepEqual(await colorsIn(page.frameLocator('iframe[title="Preview of Styled"]')), ['rgb(255, 0, 0)', 'rgb(255, 0, 0)'])
        await page.getByRole('link', { name: 'Styled', exact: true }).click()
        await page.getByRole('heading', { name: 'Styled', level: 1 }).waitFor()
        assert.deepEqual(await colorsIn(preview()), ['rgb(255, 0, 0)', 'rgb(255, 0, 0)'])
        // Typed and not saved: the live preview shows the new styles.
        await page.getByLabel('HTML', { exact: true }).fill(`${styled('rgb(0, 128, 0)')}<p id="typed">Typed</p>`)
        await preview().locator('#typed').waitFor()
        assert.deepEqual(await colorsIn(preview()), ['rgb(0, 128, 0)', 'rgb(0, 128, 0)'])
      })

      it('opens a system template read-only and copies it into a new template', async () => {
        const welcome = (await t.call(account, { method: 'GET', url: '/templates' })).json<WireTemplate[]>().find((s) => s.name === 'Welcome')!
        await gallery()
        await page.getByRole('link', { name: 'Welcome', exact: true }).click()
        await page.getByRole('heading', { name: 'Welcome (system template)', level: 1 }).waitFor()
        assert.equal(await page.getByLabel('HTML', { exact: true }).getAttribute('readonly'), '')
        assert.equal(await page.getByRole('button', { name: 'Save template' }).count(), 0)
        await page.getByRole('link', { name: 'Use as a starting point' }).click()
        await page.getByRole('heading', { name: 'New template', level: 1 }).waitFor()
        assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Welcome (copy)')
        assert.equal(await page.getByLabel('HTML', { exact: true }).inputValue(), Buffer.from(welcome.body, 'base64').toString('utf8'))
        await page.getByLabel('Name', { exact: true }).fill('Our welcome')
        await page.getByRole('button', { name: 'Create template' }).click()
        await page.getByRole('heading', { name: 'Our welcome', level: 1 }).waitFor()
        const copy = (await ownTemplates()).find((s) => s.name === 'Our welcome')
        assert.ok(copy)
        assert.deepEqual([copy.owner, copy.body], ['me', welcome.body])
      })

      it('sends a test: refused with the API message from a sender not active, then delivered to the sender', async () => {
        const list = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Readers' } })
        assert.equal(list.statusCode, 200, list.body)
        const added = await t.call(account, { method: 'POST', url: '/senders', payload: { email: 'idle@example.com', name: 'Idle' } })
        assert.equal(added.statusCode, 200, added.body)
        const autumn = (await ownTemplates()).find((s) => s.name === 'Autumn news')!
        await page.goto(`${base}/console/#/templates/${autumn.real_id}`)
        await page.getByRole('heading', { name: 'Send a test' }).waitFor()
        await page.getByLabel('From').selectOption('idle@example.com')
        await page.getByLabel('Subject').fill('Autumn test')
        await page.getByRole('button', { name: 'Send a test' }).click()
        const refused = await t.call(account, {
          method: 'POST',
          url: '/campaigns',
          payload: { sender_name: 'Idle', sender_email: 'idle@example.com', subject: 'x', body: base64('<p>x</p>'), list_id: list.json<{ id: number }>().id, is_test: true },
        })
        assert.equal(refused.statusCode >= 400 && refused.statusCode < 500, true, refused.body)
        await page.getByRole('alert').getByText(refused.json<{ message: string }>().message).waitFor()

        await activeSender(t, account, 'desk@example.com', 'Desk')
        await page.reload()
        await page.getByLabel('From').selectOption('desk@example.com')
        await page.getByLabel('Subject').fill('Autumn test')
        await page.getByRole('button', { name: 'Send a test' }).click()
        await page.getByRole('status').getByText('A test email to desk@example.com is queued').waitFor()
        const campaigns = (await t.call(account, { method: 'GET', url: '/campaigns' })).json<{ id: number }[]>()
        assert.equal(campaigns.length, 1, 'the refused test made no campaign')
        await dispatcher(t, captureChannel()).drain()
        const outbox = (await t.call(account, { method: 'GET', url: `/outbox?campaign_id=${campaigns[0]!.id}` })).json<{ to: string; subject: string; html: string; status: string }[]>()
        assert.deepEqual(outbox.map((e) => [e.to, e.subject, e.status]), [['desk@example.com', 'Autumn test', 'captured']])
        assert.match(outbox[0]!.html, /<h1>Autumn news, edited<\/h1>/)
      })

      it('shows a hostile template in the gallery and the editor without running or fetching anything', async () => {
        const remoteBase = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`
        const name = `Hostile <img src=x onerror="document.body.insertAdjacentHTML('beforeend','<p id=ran>name ran</p>')">`
        const made = await t.call(account, { method: 'POST', url: '/template', payload: { name, body: base64(hostileHtml(remoteBase, base)) } })
        assert.equal(made.statusCode, 200, made.body)
        const id = made.json<{ real_id: number }>().real_id
        await gallery()
        const thumbnail = page.getByTitle(`Preview of ${name}`, { exact: true })
        await thumbnail.contentFrame().getByRole('heading', { name: 'Hello from the template' }).waitFor()
        assert.equal(await thumbnail.getAttribute('sandbox'), '')

        await page.getByRole('link', { name, exact: true }).click()
        await page.getByRole('heading', { name, level: 1 }).waitFor()
        assert.equal(new URL(page.url()).hash, `#/templates/${id}`)
        await preview().getByRole('heading', { name: 'Hello from the template' }).waitFor()
        assert.equal(await page.locator('iframe[title="Template preview"]').getAttribute('sandbox'), '')
        // Typed, not only loaded: the live preview is as closed as the first one.
        const typed = `<img alt="typed" src=y onerror="document.body.insertAdjacentHTML('beforeend','<p id=ran>typed ran</p>')">`
        await page.getByLabel('HTML', { exact: true }).fill(`${hostileHtml(remoteBase, base)}\n${typed}`)
        await preview().getByRole('img', { name: 'typed' }).waitFor({ state: 'attached' })
        // The preview frames: the thumbnail's page, the editor's posted preview (a frame keeps its name, not its URL).
        const frames = page.frames().filter((f) => f.name() === 'template-preview' || /\/template\/\d+\/body$/.test(f.url()))
        assert.ok(frames.length >= 1)
        // A frame's load event waits for each image, stylesheet and nested frame of its document to load or fail.
        for (const frame of frames) await frame.waitForLoadState('load')
        // An own template's editor, with the test send form (this account has a list and senders by now).
        await fitsAndPassesAxe(page, 'the editor of a hostile template')
        assert.equal(await preview().locator('#ran').count(), 0, 'no script, no onerror handler ran in the preview')
        assert.equal(await page.evaluate(() => document.querySelectorAll('#ran').length), 0, 'the name stayed text')
        assert.deepEqual(remoteRequests, [], 'nothing fetched from the remote host')
        assert.deepEqual(served.filter((url) => url.includes('from=template')), [], 'nothing of the template reached the console origin')
        assert.deepEqual(await cspViolationsOf(page), [])
      })
    })
  }
})
