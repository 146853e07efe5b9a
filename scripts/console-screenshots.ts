// `npm run console:screenshots`: a screenshot of each built page of the web console, at 1440 and 375 px, into
// docs/console/ (linked from the README), and the Lists page's first-load time on loopback (median of 5 loads in a
// signed-in browser, from navigation until its table shows). A real `tidings serve` on a temporary SQLite database
// with one account and a few lists; Debian's Chromium through playwright-core (test/helpers/browser.ts).
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Page } from 'playwright-core'
import { launchChromium } from '../test/helpers/browser.js'

const OUT = 'docs/console'
const LISTS = [
  { name: 'Customers', contacts: 120 },
  { name: 'Newsletter subscribers', contacts: 45 },
  { name: 'Event attendees 2026', contacts: 8 },
]

const dataDir = mkdtempSync(join(tmpdir(), 'tidings-screenshots-'))
const env = { PATH: process.env.PATH, TIDINGS_DATA_DIR: dataDir, LOG_LEVEL: 'info', TIDINGS_API_RATE: '0' }

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
  const answer = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
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
  const account = JSON.parse(tidings('accounts', 'create', '--name', 'Acme Newsletters')) as { client_id: string; client_secret: string }
  const base = await server.address
  const { access_token: token } = await call<{ access_token: string }>(base, '', 'POST', '/oauth/access_token', {
    grant_type: 'client_credentials',
    client_id: account.client_id,
    client_secret: account.client_secret,
  })
  for (const list of LISTS) {
    const { id } = await call<{ id: number }>(base, token, 'POST', '/addressbooks', { bookName: list.name })
    const emails = Array.from({ length: list.contacts }, (_, i) => ({ email: `reader${i}@example.com`, variables: { name: `Reader ${i}` } }))
    await call(base, token, 'POST', `/addressbooks/${id}/emails`, { emails })
  }

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

    const timings: number[] = []
    for (let i = 0; i < 5; i++) {
      const fresh = await context.newPage()
      const started = performance.now()
      await fresh.goto(`${base}/console/#/lists`)
      await fresh.getByRole('row', { name: /Customers/ }).waitFor()
      timings.push(performance.now() - started)
      await fresh.close()
    }
    timings.sort((a, b) => a - b)
    console.log(`Lists page first load on loopback: median ${timings[2]!.toFixed(0)} ms (${timings.map((t) => t.toFixed(0)).join(', ')} ms)`)
  } finally {
    await browser.close()
  }
} finally {
  server.child.kill('SIGTERM')
  rmSync(dataDir, { recursive: true, force: true })
}
