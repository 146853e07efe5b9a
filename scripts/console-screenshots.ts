// `npm run console:screenshots`: a screenshot of each built page of the web console, at 1440 and 375 px, into
// docs/console/ (linked from the README), and the first-load time on loopback of the Lists page and of the contacts
// page of the largest list (median of 5 loads in a signed-in browser, from navigation until its table shows). A real
// `tidings serve` on a temporary SQLite database (CONSOLE_DATABASE=postgres: a PostgreSQL one) with one account and a
// few lists; Debian's Chromium through playwright-core (test/helpers/browser.ts). CONSOLE_BIG_LIST=1000000 adds a
// list of that many contacts (through the API, 10,000 a request: under a minute on SQLite) after the screenshots, to
// time the pages with it present.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Page } from 'playwright-core'
import { launchChromium } from '../test/helpers/browser.js'
import { addEmailsBody } from '../bench/lib/contacts.js'
import { createBenchDatabase, stopEmbeddedPostgres } from '../bench/lib/tidings.js'

const OUT = 'docs/console'
const LISTS = [
  { name: 'Customers', contacts: 120 },
  { name: 'Newsletter subscribers', contacts: 45 },
  { name: 'Event attendees 2026', contacts: 8 },
]
const BIG_LIST = Number(process.env.CONSOLE_BIG_LIST ?? 0)

// CONSOLE_DATABASE=postgres: a new database on TIDINGS_TEST_DATABASE_URL or an embedded PostgreSQL (as the benchmarks).
const database = await createBenchDatabase(process.env.CONSOLE_DATABASE === 'postgres' ? 'postgres' : 'sqlite', 'info')
const env = { PATH: process.env.PATH, TIDINGS_DATA_DIR: database.env.TIDINGS_DATA_DIR, DATABASE_URL: database.url, LOG_LEVEL: 'info', TIDINGS_API_RATE: '0' }

function tidings(...args: string[]): string {
  return execFileSync(process.execPath, ['bin/tidings.js', ...args], { env, encoding: 'utf8' })
}

function serve() {
  const child = spawn(process.execPath, ['bin/tidings.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--no-dispatch'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const address = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = JSON.parse(line) as { msg?: string; address?: string }
      if (parsed.msg === 'tidings is serving' && parsed.address) resolve(parsed.address)
    })
    child.on('exit', (code) => reject(new Error(`serve ended (${code}) before serving`)))
  })
  return { child, address }
}

async function call<T>(base: string, token: string, method: string, path: string, body: unknown): Promise<T> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body)
  const answer = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: payload })
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`)
  return (await answer.json()) as T
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 900 })
    const path = join(OUT, `${name}-${width}.png`)
    await page.screenshot({ path })
    console.log(`${path}: ${(statSync(path).size / 1024).toFixed(0)} KB`)
  }
}

const server = serve()
try {
  // Once serving, the database is migrated: `accounts create` migrating at the same time could fail.
  const base = await server.address
  const account = JSON.parse(tidings('accounts', 'create', '--name', 'Acme Newsletters')) as { client_id: string; client_secret: string }
  const { access_token: token } = await call<{ access_token: string }>(base, '', 'POST', '/oauth/access_token', {
    grant_type: 'client_credentials',
    client_id: account.client_id,
    client_secret: account.client_secret,
  })
  const listIds: number[] = []
  for (const list of LISTS) {
    const { id } = await call<{ id: number }>(base, token, 'POST', '/addressbooks', { bookName: list.name })
    const emails = Array.from({ length: list.contacts }, (_, i) => ({ email: `reader${i}@example.com`, variables: { name: `Reader ${i}` } }))
    await call(base, token, 'POST', `/addressbooks/${id}/emails`, { emails })
    listIds.push(id)
  }
  const customers = listIds[0]!
  await call(base, token, 'POST', `/addressbooks/${customers}/emails/unsubscribe`, { emails: ['reader3@example.com', 'reader7@example.com'] })

  mkdirSync(OUT, { recursive: true })
  const browser = await launchChromium()
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    context.setDefaultTimeout(10_000)
    const page = await context.newPage()
    await page.goto(`${base}/console/`)
    await page.getByLabel('Client ID').waitFor()
    await shoot(page, 'sign-in')

    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByLabel('Client ID').fill(account.client_id)
    await page.getByLabel('Client secret').fill(account.client_secret)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('row', { name: /Customers/ }).waitFor()
    await shoot(page, 'lists')

    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('button', { name: 'Delete Event attendees 2026' }).click()
    await page.getByRole('dialog').waitFor()
    await shoot(page, 'lists-delete')

    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('link', { name: 'Customers' }).click()
    await page.getByText('Contacts 1–50').waitFor()
    await shoot(page, 'contacts')

    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('button', { name: 'Edit variables of reader2@example.com' }).click()
    await page.getByRole('dialog').waitFor()
    await shoot(page, 'contacts-edit')
    await shootItemSixPages(page, base, token)

    // The CSV import's report: a file of 30 rows, two of them refused.
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Import CSV' }).click()
    const rows = Array.from({ length: 30 }, (_, i) => (i === 9 ? 'reader.example.com,Ten,Oslo' : i === 21 ? 'r22@,x,y' : `new${i + 1}@example.com,Reader ${i + 1},Bergen`))
    await page.getByLabel('CSV file').setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(['email,name,city', ...rows].join('\r\n')) })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByText(/^Done: /).waitFor()
    await shoot(page, 'contacts-import')
    await page.getByRole('button', { name: 'Close' }).click()

    const firstLoad = async (label: string, hash: string, shown: string) => {
      const timings: number[] = []
      for (let i = 0; i < 5; i++) {
        const fresh = await context.newPage()
        const started = performance.now()
        await fresh.goto(`${base}/console/${hash}`)
        await fresh.getByText(shown).waitFor()
        timings.push(performance.now() - started)
        await fresh.close()
      }
      timings.sort((a, b) => a - b)
      console.log(`${label} first load on loopback: median ${timings[2]!.toFixed(0)} ms (${timings.map((t) => t.toFixed(0)).join(', ')} ms)`)
    }
    // Loaded after the screenshots, which show the small lists only.
    let timedListId = customers
    if (BIG_LIST > 0) {
      const started = performance.now()
      const { id } = await call<{ id: number }>(base, token, 'POST', '/addressbooks', { bookName: 'Everyone' })
      for (let from = 0; from < BIG_LIST; from += 10_000) await call(base, token, 'POST', `/addressbooks/${id}/emails`, addEmailsBody(from, Math.min(from + 10_000, BIG_LIST)))
      console.log(`${BIG_LIST.toLocaleString('en')} contacts loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`)
      timedListId = id
    }
    await firstLoad('Lists page', '#/lists', 'Customers')
    await firstLoad(`Contacts page of list ${timedListId}`, `#/lists/${timedListId}`, 'Contacts 1–50')
    // The "Not active" filter of a list with none: a partial index of the inactive contacts (migration 0021) answers at once.
    const filtered = await context.newPage()
    await filtered.goto(`${base}/console/#/lists/${timedListId}`)
    await filtered.getByText('Contacts 1–50').waitFor()
    let started = performance.now()
    await filtered.getByRole('button', { name: 'Next page' }).click()
    await filtered.getByText('Contacts 51–100').waitFor()
    console.log(`Next page: ${(performance.now() - started).toFixed(0)} ms`)
    started = performance.now()
    await filtered.getByLabel('Status').selectOption('inactive')
    await filtered.getByText(/^Contacts 1–|^No contacts here\.$/).waitFor({ timeout: 60_000 })
    console.log(`Not active filter: ${(performance.now() - started).toFixed(0)} ms`)
  } finally {
    await browser.close()
  }
} finally {
  server.child.kill('SIGTERM')
  await once(server.child, 'exit')
  await database.drop()
  await stopEmbeddedPostgres()
}

/** Senders, Blacklist, Balance and Outbox (issue 21 item 6), with a little data each, and one outbox message open. */
async function shootItemSixPages(page: Page, base: string, token: string): Promise<void> {
  await call(base, token, 'POST', '/senders', { email: 'news@acme.example', name: 'Acme News' })
  await call(base, token, 'POST', '/senders', { email: 'billing@acme.example', name: 'Acme Billing' })
  await call(base, token, 'GET', '/senders/news@acme.example/code', undefined)
  const emails = Buffer.from('complaint@example.com, bounced@example.org, old-address@example.net').toString('base64')
  await call(base, token, 'POST', '/blacklist', { emails, comment: 'from the last campaign' })
  const accountId = (JSON.parse(tidings('accounts', 'list')) as { id: number }[])[0]!.id
  tidings('accounts', 'credit', String(accountId), '250')
  for (const [path, shown] of [['senders', 'billing@acme.example'], ['blacklist', 'complaint@example.com'], ['balance', 'operator credit'], ['outbox', 'news@acme.example']] as const) {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${base}/console/#/${path}`)
    await page.getByText(shown).first().waitFor()
    await shoot(page, path)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.locator('tbody th button').first().click()
  await page.frameLocator('iframe').locator('body').waitFor()
  await shoot(page, 'outbox-message')
}
