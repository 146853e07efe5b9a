// `npm run console:screenshots`: a screenshot of each built page of the web console, at 1440 and 375 px, into
// docs/console/ (linked from the README), and the first-load time on loopback of the Lists page and of the contacts
// page of the largest list (median of 5 loads in a signed-in browser, from navigation until its table shows). A real
// `tidings serve` on a temporary SQLite database (CONSOLE_DATABASE=postgres: a PostgreSQL one) with one account and a
// few lists; Debian's Chromium through playwright-core (test/helpers/browser.ts). CONSOLE_BIG_LIST=1000000 adds a
// list of that many contacts (through the API, 10,000 a request: under a minute on SQLite) after the screenshots, to
// time the pages with it present.
import { execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Page } from 'playwright-core'
import { launchChromium } from '../test/helpers/browser.js'
import { addEmailsBody } from '../bench/lib/contacts.js'
import { createBenchDatabase, stopEmbeddedPostgres } from '../bench/lib/tidings.js'
import { openDatabase } from '../src/storage/db.js'
import { insertReportMessages } from '../bench/lib/report-messages.js'
import { countLinkClicks } from '../src/storage/repos/campaigns.js'

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

  await writeMonthOfEmails(database.url, (JSON.parse(tidings('accounts', 'list')) as { id: number }[])[0]!.id)

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
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    await page.locator('figure canvas').first().waitFor()
    await shoot(page, 'dashboard')

    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('link', { name: 'Lists' }).click()
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
    // After the contacts page's own shots: these leave it (the import above needs its open dialog's Cancel).
    await shootItemSixPages(page, base, token)
    await activateNewsSender(base, token)
    await shootCampaignReport(page, base, token, customers)
    await shootWebhooks(page, base, token)
    await shootTemplates(page, base, token)
    await shootCampaignPages(page, base, token, listIds)
    await shootSmsViberPages(page, base, token, customers)

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

/**
 * Webhooks (issue 21 item 6): two webhooks on a receiver in this process (one answering 200, one 500), a test event
 * to each delivered by a `tidings worker` run for the purpose (`serve --no-dispatch` sends nothing; loopback needs
 * TIDINGS_WEBHOOK_ALLOW_PRIVATE), and the delivery log of the working one open.
 */
async function shootWebhooks(page: Page, base: string, token: string): Promise<void> {
  const receiver = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.statusCode = request.url === '/hooks/broken' ? 500 : 200
      response.end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  const worker = spawn(process.execPath, ['bin/tidings.js', 'worker'], { env: { ...env, TIDINGS_WEBHOOK_ALLOW_PRIVATE: '1' }, stdio: 'ignore' })
  try {
    const ids: number[] = []
    for (const [path, actions] of [['/hooks/sendpulse', ['delivered', 'open']], ['/hooks/broken', ['spam']]] as const) {
      const { data } = await call<{ data: { id: number }[] }>(base, token, 'POST', '/v2/email-service/webhook', { url: `${origin}${path}`, actions })
      await call(base, token, 'POST', `/v2/email-service/webhook/${data[0]!.id}/test`, {})
      ids.push(data[0]!.id)
    }
    for (const id of ids) {
      for (let tries = 0; ; tries++) {
        const { data } = await call<{ data: unknown[] }>(base, token, 'GET', `/v2/email-service/webhook/${id}/deliveries`, undefined)
        if (data.length > 0) break
        if (tries === 100) throw new Error(`webhook ${id}: no delivery within 10 s`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  } finally {
    worker.kill('SIGTERM')
    await once(worker, 'exit')
    receiver.close()
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/webhooks`)
  await page.getByRole('button', { name: `Delivery log of delivered to ${origin}/hooks/sendpulse` }).click()
  await page.getByRole('row').filter({ hasText: ' ms' }).first().waitFor()
  await shoot(page, 'webhooks')
  // The delivery log, below the list: scrolled to at each width.
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 900 })
    await page.getByRole('heading', { name: /^Delivery log of/ }).evaluate((heading) => heading.scrollIntoView())
    const path = join(OUT, `webhooks-log-${width}.png`)
    await page.screenshot({ path })
    console.log(`${path}: ${(statSync(path).size / 1024).toFixed(0)} KB`)
  }
}

/** The templates gallery (one own template beside the system ones) and that template in the editor (issue 21 item 4). */
async function shootTemplates(page: Page, base: string, token: string): Promise<void> {
  const html = '<html><body><h1>Spring sale</h1><p>Hello {{name}}, everything is 20% off until Sunday.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>'
  const { real_id: id } = await call<{ real_id: number }>(base, token, 'POST', '/template', { name: 'Spring sale', body: Buffer.from(html).toString('base64') })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/templates`)
  await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor()
  await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0))
  await shoot(page, 'templates')
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/templates/${id}`)
  await page.frameLocator('iframe[title="Template preview"]').getByRole('heading', { name: 'Spring sale' }).waitFor()
  await shoot(page, 'template-editor')
}

/**
 * Campaigns (issue 21 item 5): the list, the form, a campaign sent to Customers (by a `tidings worker` started for it:
 * this server runs with --no-dispatch; no relay, so its messages are captured) and one scheduled for tomorrow.
 */
async function shootCampaignPages(page: Page, base: string, token: string, listIds: number[]): Promise<void> {
  const campaign = (fields: Record<string, unknown>) =>
    call<{ id: number }>(base, token, 'POST', '/campaigns', {
      sender_email: 'news@acme.example',
      sender_name: 'Acme News',
      body: Buffer.from('<h1>Hello {{name}}</h1><p>Our spring collection is here.</p>').toString('base64'),
      ...fields,
    })
  const sent = await campaign({ name: 'Spring collection', subject: 'Spring is here, {{name}}', list_id: listIds[0] })
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 11) + '09:00:00'
  await call(base, token, 'POST', '/campaigns', { sender_email: 'news@acme.example', sender_name: 'Acme News', subject: 'Summer preview', list_id: listIds[1], send_date: tomorrow.replace('T', ' '), body: Buffer.from('<p>Soon.</p>').toString('base64') })
  const worker = spawn(process.execPath, ['bin/tidings.js', 'worker'], { env, stdio: 'ignore' })
  try {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${base}/console/#/campaigns/${sent.id}`)
    // The status ("Sent"), not the count of that name.
    await page.locator('.facts dd', { hasText: /^Sent$/ }).waitFor({ timeout: 60_000 })
  } finally {
    worker.kill('SIGTERM')
    await once(worker, 'exit')
  }
  await shoot(page, 'campaign')
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/campaigns`)
  await page.getByRole('row', { name: /Summer preview/ }).waitFor()
  await shoot(page, 'campaigns')
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/campaigns/new`)
  await page.getByRole('radio', { name: 'From HTML' }).check()
  await page.getByLabel('HTML source').fill('<h1>Hello {{name}}</h1>')
  await page.getByRole('checkbox', { name: /^Customers/ }).check()
  await page.getByLabel(/^Subject/).fill('Autumn sale, {{name}}')
  await shoot(page, 'campaign-new')
}

/** The SMS and Viber pages (issue 21 item 7), each section with a little data, and an SMS campaign's cost shown. */
async function shootSmsViberPages(page: Page, base: string, token: string, listId: number): Promise<void> {
  const account = String((JSON.parse(tidings('accounts', 'list')) as { id: number }[])[0]!.id)
  const added = (output: string) => String((JSON.parse(output) as { id: number }).id)
  tidings('sms', 'senders', 'approve', added(tidings('sms', 'senders', 'add', 'AcmeShop', '--account', account)))
  tidings('sms', 'senders', 'add', 'AcmeNews', '--account', account)
  const viberSender = added(tidings('viber', 'senders', 'add', 'Acme Shop', '--account', account, '--country', 'GB', '--service-type', 'shop'))
  tidings('viber', 'senders', 'verify', viberSender)
  await call(base, token, 'POST', '/sms/numbers', { addressBookId: listId, phones: ['+380631234567', '+447400123456', '+4915123456789'] })
  await call(base, token, 'POST', '/sms/black_list', { phones: ['+447400654321', '+380671112233'], description: 'asked not to be texted' })
  await call(base, token, 'POST', '/sms/send', { sender: 'AcmeShop', body: 'Spring sale: 20% off until Sunday', phones: ['+380631234567', '+447400123456'] })
  await call(base, token, 'POST', '/sms/campaigns', { sender: 'AcmeShop', body: 'Your order has shipped', addressBookId: listId, date: '2030-01-02 10:30:00' })
  const viber = { task_name: 'Spring sale', message_type: 2, sender_id: Number(viberSender), message_live_time: 3600, send_date: 'now', message: 'Spring sale: 20% off until Sunday' }
  await call(base, token, 'POST', '/viber', {
    ...viber,
    recipients: [447400100001, 447400100002, 380631234567],
    additional: { button: { text: 'Shop now', link: 'https://acme.example/spring' }, resend_sms: { status: true, sms_text: 'Spring sale: 20% off at acme.example', sms_sender_name: 'AcmeShop' } },
  })
  await call(base, token, 'POST', '/v2/viber-service/phone-exception', { phones: ['447400100009'], description: 'complained' })
  const shots = [
    ['sms/campaigns', /Campaign \d+/],
    ['sms/numbers', 'Look up a number'],
    ['sms/blacklist', 'asked not to be texted'],
    ['sms/senders', 'AcmeNews'],
    ['viber/campaigns', 'Spring sale'],
    ['viber/senders', 'Acme Shop'],
    ['viber/blacklist', 'complained'],
  ] as const
  for (const [path, shown] of shots) {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${base}/console/#/${path}`)
    await page.getByText(shown).first().waitFor()
    await shoot(page, path.replace('/', '-'))
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/viber/campaigns`)
  await page.getByRole('button', { name: 'Spring sale: statistics and recipients' }).click()
  await page.getByRole('row', { name: /447400100002/ }).waitFor()
  await shoot(page, 'viber-campaign')
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/sms/campaigns`)
  await page.getByText('New SMS campaign').click()
  await page.getByLabel('Message', { exact: true }).fill('Last day of the spring sale')
  await page.getByRole('button', { name: 'Show the cost' }).click()
  await page.getByRole('dialog').waitFor()
  await shoot(page, 'sms-campaign-cost')
  await page.keyboard.press('Escape')
}

/**
 * The Dashboard's figures: a month of a sent campaign's messages written straight into the database (the server
 * runs with --no-dispatch, and a month cannot be sent in a minute), as the dispatcher, tracking and bounce reports
 * leave them: about 400 a weekday, fewer at weekends, 97 % delivered, a third of those opened, a tenth clicked.
 */
async function writeMonthOfEmails(url: string, accountId: number): Promise<void> {
  const storage = openDatabase(url)
  try {
    const db = storage.db
    const now = Date.now()
    const campaign = await db
      .insertInto('campaigns')
      .values({ account_id: accountId, name: 'Monthly news', status: 3, sender_name: 'Acme News', sender_email: 'news@acme.example', subject: 'News', body: '<p>News</p>', list_ids: '[]', send_at: now, currency: 'USD', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const rows = []
    for (let day = 29; day >= 0; day--) {
      const at = now - day * 86_400_000
      const weekend = [0, 6].includes(new Date(at).getUTCDay())
      const count = (weekend ? 120 : 400) + ((day * 37) % 90)
      for (let i = 0; i < count; i++) {
        const bounced = i % 33 === 0
        const opened = !bounced && i % 3 === 0
        const clicked = opened && i % 10 === 0
        const status = bounced ? 8 : i % 997 === 1 ? 11 : clicked ? 4 : opened ? 3 : 2
        rows.push({ campaign_id: campaign.id, account_id: accountId, address: `reader${day}-${i}@example.com`, channel: 'email', status, queued: 0, sent_at: at, opened_at: opened ? at + 3_600_000 : null, clicked_at: clicked ? at + 3_700_000 : null, updated_at: at })
      }
    }
    for (let i = 0; i < 150; i++) rows.push({ campaign_id: campaign.id, account_id: accountId, address: `waiting${i}@example.com`, channel: 'email', status: 0, queued: 1, sent_at: null, opened_at: null, clicked_at: null, updated_at: now })
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('messages').values(rows.slice(i, i + 500)).execute()
  } finally {
    await storage.close()
  }
}

/** The sender shootItemSixPages left waiting for its code, activated with the code read as the operator does. */
async function activateNewsSender(base: string, token: string): Promise<void> {
  const accountId = (JSON.parse(tidings('accounts', 'list')) as { id: number }[])[0]!.id
  const outbox = JSON.parse(tidings('outbox', '--account', String(accountId))) as { kind: string; to: string; subject: string; text: string }[]
  const codeEmail = outbox.filter((e) => e.kind === 'sender_code' && e.to === 'news@acme.example').at(-1)
  const code = /\b(\d{8})\b/.exec(`${codeEmail?.subject}\n${codeEmail?.text}`)?.[1]
  if (!code) throw new Error('no activation code for news@acme.example in the outbox')
  await call(base, token, 'POST', '/senders/news@acme.example/code', { code })
}

/**
 * A campaign's report (issue 21 item 5): a campaign to the Customers list, whose 120 messages, opens over two days,
 * countries and link clicks are written into the database directly (this server does not dispatch).
 */
async function shootCampaignReport(page: Page, base: string, token: string, listId: number): Promise<void> {
  const accountId = (JSON.parse(tidings('accounts', 'list')) as { id: number }[])[0]!.id
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19).replace('T', ' ')
  const html = '<p>Hello {{name}}, our <a href="https://acme.example/sale">November sale</a> starts today. <a href="https://acme.example/blog">Read more</a></p>'
  const { id } = await call<{ id: number }>(base, token, 'POST', '/campaigns', {
    sender_name: 'Acme News',
    sender_email: 'news@acme.example',
    subject: 'Our November sale',
    name: 'November sale',
    body: Buffer.from(html).toString('base64'),
    list_id: listId,
    send_date: tomorrow,
  })
  const storage = openDatabase(database.url)
  try {
    await insertReportMessages(storage.db, { campaignId: id, accountId, count: 120, t0: Date.now() - 2 * 86_400_000, spreadSeconds: 2 * 86_400, domain: 'example.com' })
    await countLinkClicks(storage.db, [
      { campaignId: id, link: 'https://acme.example/sale', clicks: 9 },
      { campaignId: id, link: 'https://acme.example/blog', clicks: 4 },
    ])
  } finally {
    await storage.close()
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`${base}/console/#/campaigns/${id}`)
  await page.getByText('Recipients 1–50').waitFor()
  await page.locator('figure.chart canvas').first().waitFor()
  // The report is below the campaign's facts and progress: the shot starts at its heading.
  await page.getByRole('heading', { name: /^Report: / }).evaluate((heading) => heading.scrollIntoView())
  await shoot(page, 'campaign-report')
}
