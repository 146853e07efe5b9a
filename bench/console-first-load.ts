// `npm run bench:console`: the first load of every page of the web console (issue 21: each under 1 s on loopback with
// a 1,000,000-contact list present). For each database (BENCH_DIALECTS, default sqlite,postgres): `tidings serve` (the
// built dist/) on a fresh database with one account, a few small lists, a sender (an outbox email) and a list of
// BENCH_CONTACTS contacts (default 1,000,000; loaded through the API as the screenshots script does); Chromium (Debian's,
// through playwright-core) signs in once. Then every page of console/src/pages.ts, and the contacts page
// of the big list, is loaded BENCH_LOADS times (default 5), each in a new browser context (an empty cache, as a first
// visit; the session cookie copied in), timed from navigation start to its data shown: its h1 there and no loading
// state left (no text starting "Loading", nothing aria-busy), read in the page (performance.now() is measured from
// navigation start). The contacts page also waits for its count line and its first page of rows. Three actions of the
// contacts page are timed through the API (median of BENCH_LOADS): the next page, the "Not active" filter (nobody is
// inactive: the worst case) and a search by the start of an address.
import { performance } from 'node:perf_hooks'
import type { Browser, BrowserContext } from 'playwright-core'
import { launchChromium } from '../test/helpers/browser.js'
import { PAGES } from '../console/src/pages.js'
import { benchContact, postContacts } from './lib/contacts.js'
import { json } from './lib/http.js'
import { run } from './lib/processes.js'
import { authorization, benchEachDialect, createAccount, createBenchDatabase, createList, expectListSize, postgresSource, startServer, type Dialect } from './lib/tidings.js'

const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as Dialect[]
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000)
const LOADS = Number(process.env.BENCH_LOADS ?? 5)
const GOAL_MS = 1000

interface Row {
  dialect: Dialect
  what: string
  medianMs: number
  timesMs: number[]
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

if (process.env.BENCH_NO_BUILD !== '1') {
  console.log('building dist/ and the console …')
  run('npm', ['run', 'build'])
}

const rows = (await benchEachDialect(DIALECTS, benchDialect)).flat()
printTable(rows)

async function benchDialect(dialect: Dialect): Promise<Row[]> {
  const database = await createBenchDatabase(dialect)
  const account = createAccount(database, 'Console bench')
  const server = await startServer(database, `console-${dialect}`, undefined, ['--no-dispatch'])
  try {
    const headers = { ...(await authorization(server.base, account)), 'content-type': 'application/json' }
    for (const name of ['Customers', 'Newsletter subscribers', 'Event attendees']) {
      const id = await createList(server.base, headers, name)
      await postContacts(server.base, headers, id, { from: 0, to: 100, batch: 100, concurrency: 1, prefix: name[0]!.toLowerCase() })
    }
    await json(`${server.base}/senders`, { method: 'POST', headers, body: JSON.stringify({ email: 'news@acme.example', name: 'Acme News' }) })
    await json(`${server.base}/senders/news@acme.example/code`, { headers })
    const big = await createList(server.base, headers, 'Everyone')
    const started = performance.now()
    await postContacts(server.base, headers, big, { from: 0, to: CONTACTS, batch: 10_000, concurrency: 2 })
    await expectListSize(server.base, headers, big, CONTACTS)
    console.log(`${dialect}: ${CONTACTS.toLocaleString('en')} contacts loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`)

    const rows: Row[] = []
    const browser = await launchChromium()
    try {
      const signedIn = await signIn(browser, server.base, account)
      const storageState = await signedIn.storageState()
      const targets = [
        ...PAGES.map((p) => ({ what: `${p.title} (#/${p.path})`, hash: `#/${p.path}`, contacts: false })),
        { what: `Contacts of a ${CONTACTS.toLocaleString('en')}-contact list`, hash: `#/lists/${big}`, contacts: true },
      ]
      for (const target of targets) {
        const times: number[] = []
        for (let i = 0; i < LOADS; i++) {
          const context = await browser.newContext({ storageState, viewport: { width: 1440, height: 900 } })
          try {
            times.push(await firstLoad(context, `${server.base}/console/${target.hash}`, target.contacts))
          } finally {
            await context.close()
          }
        }
        rows.push({ dialect, what: target.what, medianMs: median(times), timesMs: times })
        console.log(`${dialect}: ${target.what}: median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`)
      }
    } finally {
      await browser.close()
    }

    // Every answer is checked: the addresses a search must give are counted from the generated data set.
    const apiBase = `${server.base}/addressbooks/${big}/emails?limit=50`
    const startingWith = (digits: string) => Math.min(50, Array.from({ length: CONTACTS }, (_, i) => String(i)).filter((i) => i.startsWith(digits)).length)
    const after = benchContact(10_045).email
    for (const [what, url, expected, prefix] of [
      ['API: the next page (offset 50)', `${apiBase}&offset=50`, Math.min(50, CONTACTS - 50), 'c'],
      ['API: "Not active" (nobody is)', `${apiBase}&not_active=true`, 0, 'c'],
      ['API: search by the start "C12345"', `${apiBase}&email_prefix=C12345`, startingWith('12345'), 'c12345'],
      ["API: the search's page after c10045…", `${apiBase}&email_prefix=c1&after_email=${encodeURIComponent(after)}`, 50, 'c1'],
    ] as const) {
      const times: number[] = []
      for (let i = 0; i < LOADS; i++) {
        const t0 = performance.now()
        const found = await json<{ email: string }[]>(url, { headers })
        times.push(performance.now() - t0)
        if (found.length !== expected || !found.every((c) => c.email.startsWith(prefix))) throw new Error(`${what}: ${found.length} contacts (${found[0]?.email} …), expected ${expected}`)
      }
      rows.push({ dialect, what, medianMs: median(times), timesMs: times })
      console.log(`${dialect}: ${what}: median ${median(times).toFixed(1)} ms`)
    }
    return rows
  } finally {
    await server.stop()
    await database.drop()
  }
}

async function signIn(browser: Browser, base: string, account: { client_id: string; client_secret: string }): Promise<BrowserContext> {
  const context = await browser.newContext()
  context.setDefaultTimeout(30_000)
  const page = await context.newPage()
  await page.goto(`${base}/console/`)
  await page.getByLabel('Client ID').fill(account.client_id)
  await page.getByLabel('Client secret').fill(account.client_secret)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  return context
}

/** Milliseconds from navigation start until the page's data is shown, as the page's own clock says. */
async function firstLoad(context: BrowserContext, url: string, contactsPage: boolean): Promise<number> {
  const page = await context.newPage()
  await page.goto(url, { waitUntil: 'commit' })
  const shown = await page.waitForFunction(
    (contacts) => {
      const main = document.querySelector('main')
      const h1 = main?.querySelector('h1')
      if (!main || !h1 || main.querySelector('[aria-busy="true"]')) return false
      const texts = [...main.querySelectorAll('p, span, div, td, li')].map((e) => e.textContent?.trim() ?? '')
      if (texts.some((t) => t.startsWith('Loading'))) return false
      if (contacts && !(/ contacts, [\d,]+ active\./.test(main.textContent ?? '') && /Contacts 1–50/.test(main.textContent ?? ''))) return false
      return performance.now()
    },
    contactsPage,
    { polling: 'raf', timeout: 30_000 },
  )
  const ms = (await shown.jsonValue()) as number
  const failed = await page.locator('[role="alert"]').allTextContents()
  if (failed.some((t) => t.trim() !== '')) throw new Error(`${url}: the page says ${failed.join(' ')}`)
  return ms
}

function printTable(rows: Row[]): void {
  console.log(`\nPostgreSQL: ${postgresSource()}; ${LOADS} loads each, medians; goal < ${GOAL_MS} ms for each page's first load.\n`)
  console.log('| database | page or call | median (ms) | loads (ms) | goal |')
  console.log('|---|---|---:|---|---|')
  for (const r of rows) {
    const goal = r.what.startsWith('API:') ? '' : r.medianMs < GOAL_MS ? 'met' : 'NOT met'
    console.log(`| ${r.dialect} | ${r.what} | ${r.medianMs.toFixed(r.medianMs < 10 ? 1 : 0)} | ${r.timesMs.map((t) => t.toFixed(0)).join(', ')} | ${goal} |`)
  }
}
