// The contacts page of the web console in Chromium, on both databases: from the Lists page to a list's contacts,
// paging forward and back, the status filter, finding an address, adding a contact, editing its variables,
// unsubscribing and (after confirming) deleting it, each checked through the API; another account's list stays
// out of reach; axe-core and no sideways scrolling at 375 and 1440 px. Needs the built console (`npm run build`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { DIALECTS } from '../helpers/databases.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import type { TestAccount } from '../helpers/factories.js'
import { fitsAndPassesAxe, openConsoleTab, seriousAxeViolations, sharedConsoleBrowser, signIn } from '../helpers/browser.js'

/** Every wait is bounded: a page that does not answer fails the test in seconds. */
const WAIT_MS = 10_000
/** Two and a half pages of 50. */
const CONTACTS = 120
const UNSUBSCRIBED = ['reader005@example.com', 'reader006@example.com', 'reader007@example.com']

const address = (i: number) => `reader${String(i).padStart(3, '0')}@example.com`

describe('the contacts page of the web console in Chromium', () => {
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
        account = await t.account('Contacts Test Ltd')
        listId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Readers' } })).json<{ id: number }>().id
        const emails = Array.from({ length: CONTACTS }, (_, i) => ({ email: address(i), variables: { name: `Reader ${i}` } }))
        assert.equal((await t.call(account, { method: 'POST', url: `/addressbooks/${listId}/emails`, payload: { emails } })).statusCode, 200)
        const unsubscribed = await t.call(account, { method: 'POST', url: `/addressbooks/${listId}/emails/unsubscribe`, payload: { emails: UNSUBSCRIBED } })
        assert.equal(unsubscribed.statusCode, 200)
        ;({ context, page } = await openConsoleTab(chromium.browser, { waitMs: WAIT_MS, errors: consoleErrors }))
      })
      after(async () => {
        await context?.close()
        await t?.close()
      })

      const shownEmails = () => page.locator('tbody th[scope="row"]').allTextContents()
      const contactOf = async (email: string) => t.call(account, { method: 'GET', url: `/addressbooks/${listId}/emails/${email}` })

      it('opens a list from the Lists page on its first page of 50 contacts, oldest first', async () => {
        await signIn(page, base, account)
        // The console opens on the Dashboard.
        await page.getByRole('link', { name: 'Lists', exact: true }).click()
        await page.getByRole('link', { name: 'Readers' }).click()
        await page.getByRole('heading', { name: 'Contacts of “Readers”', level: 1 }).waitFor()
        await page.getByText('Contacts 1–50').waitFor()
        assert.deepEqual(await shownEmails(), Array.from({ length: 50 }, (_, i) => address(i)))
        await page.getByText('120 contacts, 117 active.').waitFor()
        assert.equal(await page.getByRole('row', { name: /reader005@example.com/ }).getByRole('cell').first().textContent(), 'Unsubscribed')
        assert.equal(await page.title(), 'Readers · Lists · Tidings')
        assert.deepEqual(await seriousAxeViolations(page), [])
      })

      it('pages forward to the end and back', async () => {
        const next = page.getByRole('button', { name: 'Next page' })
        const previous = page.getByRole('button', { name: 'Previous page' })
        assert.equal(await previous.isDisabled(), true)
        await next.click()
        await page.getByText('Contacts 51–100').waitFor()
        assert.deepEqual(await shownEmails(), Array.from({ length: 50 }, (_, i) => address(50 + i)))
        await next.click()
        await page.getByText('Contacts 101–120').waitFor()
        assert.deepEqual(await shownEmails(), Array.from({ length: 20 }, (_, i) => address(100 + i)))
        assert.equal(await next.isDisabled(), true, 'the last page')
        await previous.click()
        await page.getByText('Contacts 51–100').waitFor()
        assert.equal(await shownEmails().then((e) => e[0]), address(50))
        await previous.click()
        await page.getByText('Contacts 1–50').waitFor()
      })

      it('filters by status, from the first page', async () => {
        const status = page.getByLabel('Status')
        await page.getByRole('button', { name: 'Next page' }).click()
        await page.getByText('Contacts 51–100').waitFor()
        await status.selectOption({ label: 'Not active (unsubscribed, bounced, …)' })
        await page.getByText('Contacts 1–3').waitFor()
        assert.deepEqual(await shownEmails(), UNSUBSCRIBED)
        await status.selectOption({ label: 'Active and new' })
        await page.getByText('Contacts 1–50').waitFor()
        const active = await shownEmails()
        assert.equal(active.length, 50)
        assert.ok(!active.some((e) => UNSUBSCRIBED.includes(e)), 'no unsubscribed contact among the active ones')
        assert.equal(active[5], address(8))
        await status.selectOption({ label: 'All statuses' })
        await page.getByRole('row', { name: /reader005@example.com/ }).waitFor()
      })

      it('finds contacts by the start of their address in any case, pages the matches, says when there is none, and shows all again', async () => {
        const search = page.getByRole('search', { name: 'Contacts' })
        await search.getByLabel('Find by the start of the address').fill('READER04')
        await search.getByRole('button', { name: 'Find' }).click()
        await page.getByText('Addresses starting with “READER04”, page 1').waitFor()
        assert.deepEqual(await shownEmails(), Array.from({ length: 10 }, (_, i) => address(40 + i)))
        assert.equal(await page.getByRole('group', { name: 'Pages of contacts' }).count(), 0, 'the pages of the whole list are not shown')
        await search.getByLabel('Find by the start of the address').fill('reader')
        await search.getByRole('button', { name: 'Find' }).click()
        await page.getByText('Addresses starting with “reader”, page 1').waitFor()
        const matches = page.getByRole('group', { name: 'Pages of matches' })
        await matches.getByRole('button', { name: 'Next page' }).click()
        await page.getByText('Addresses starting with “reader”, page 2').waitFor()
        assert.equal((await shownEmails())[0], address(50))
        await matches.getByRole('button', { name: 'Previous page' }).click()
        await page.getByText('Addresses starting with “reader”, page 1').waitFor()
        assert.equal((await shownEmails())[0], address(0))
        await search.getByLabel('Find by the start of the address').fill('nobody')
        await search.getByRole('button', { name: 'Find' }).click()
        await page.getByText('No contact whose address starts with “nobody”.').waitFor()
        await search.getByRole('button', { name: 'Show all' }).click()
        await page.getByText('Contacts 1–50').waitFor()
        assert.equal((await shownEmails()).length, 50)
        assert.equal(await search.getByLabel('Find by the start of the address').inputValue(), '')
      })

      it('adds a contact with a variable, edits its variables, unsubscribes it and deletes it after confirming', async () => {
        await page.getByText('Add a contact').click()
        await page.getByLabel('Email address', { exact: true }).fill('new.reader@example.com')
        await page.getByLabel('Variable name (optional)').fill('city')
        await page.getByLabel('Variable value').fill('Oslo')
        await page.getByRole('button', { name: 'Add contact' }).click()
        await page.getByRole('status').getByText('new.reader@example.com added.').waitFor()
        const added = (await contactOf('new.reader@example.com')).json<{ status: number; variables: { name: string; value: string }[] }>()
        assert.deepEqual(added.variables.map((v) => [v.name, v.value]), [['city', 'Oslo']])
        await page.getByText('121 contacts, 118 active.').waitFor()

        const search = page.getByRole('search', { name: 'Contacts' })
        await search.getByLabel('Find by the start of the address').fill('new.reader@example.com')
        await search.getByRole('button', { name: 'Find' }).click()
        await page.getByText('Addresses starting with “new.reader@example.com”, page 1').waitFor()
        await page.getByRole('button', { name: 'Edit variables of new.reader@example.com' }).click()
        const edit = page.getByRole('dialog', { name: 'Variables of new.reader@example.com' })
        await edit.getByLabel('city').fill('Bergen')
        await edit.getByLabel('New variable name').fill('plan')
        await edit.getByLabel('New variable value').fill('gold')
        await edit.getByRole('button', { name: 'Save variables' }).click()
        await page.getByRole('row', { name: /city: Bergen, plan: gold/ }).waitFor()
        const edited = (await contactOf('new.reader@example.com')).json<{ variables: { name: string; value: string }[] }>()
        assert.deepEqual(edited.variables.map((v) => [v.name, v.value]).sort(), [['city', 'Bergen'], ['plan', 'gold']])

        await page.getByRole('button', { name: 'Unsubscribe new.reader@example.com' }).click()
        await page.getByRole('row', { name: /new.reader@example.com Unsubscribed/ }).waitFor()
        assert.equal((await contactOf('new.reader@example.com')).json<{ status: number }>().status, 4)
        assert.equal(await page.getByRole('button', { name: 'Unsubscribe new.reader@example.com' }).isDisabled(), true)

        await page.getByRole('button', { name: 'Delete new.reader@example.com' }).click()
        const confirm = page.getByRole('dialog', { name: 'Delete new.reader@example.com?' })
        assert.deepEqual(await seriousAxeViolations(page), [], 'with the dialog open')
        await confirm.getByRole('button', { name: 'Cancel' }).click()
        assert.equal((await contactOf('new.reader@example.com')).statusCode, 200, 'cancelled: nothing deleted')
        await page.getByRole('button', { name: 'Delete new.reader@example.com' }).click()
        await confirm.getByRole('button', { name: 'Delete contact' }).click()
        await page.getByText('No contact whose address starts with “new.reader@example.com”.').waitFor()
        assert.equal((await contactOf('new.reader@example.com')).statusCode, 404)
        await page.getByText('120 contacts, 117 active.').waitFor()
      })

      it('fits 375 and 1440 px without sideways scrolling and passes axe at both', async () => {
        await page.getByRole('button', { name: 'Show all' }).click()
        await page.getByText('Contacts 1–50').waitFor()
        await fitsAndPassesAxe(page, 'contacts')
      })

      it('shows nothing of another account’s list named in the address', async () => {
        const other = await t.account('Someone Else')
        const { id } = (await t.call(other, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Private' } })).json<{ id: number }>()
        await t.call(other, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: ['secret@example.com'] } })
        await page.goto(`${base}/console/#/lists/${id}`)
        await page.getByRole('alert').waitFor()
        assert.equal(await page.getByText('secret@example.com').count(), 0)
        assert.equal(await page.getByText('Private').count(), 0)
        assert.deepEqual(await shownEmails(), [])
        assert.deepEqual(consoleErrors.filter((e) => /Content Security Policy/i.test(e)), [])
      })
    })
  }
})
