// Debian's Chromium driven by playwright-core (Playwright's own browser download is not reachable here), with the
// flags this machine needs: without the background-networking ones Chromium keeps dialling Google's hosts, which the
// closed network refuses (/work/.library/env/machines/node.md). Playwright adds --headless, --no-sandbox (its
// chromiumSandbox option is off by default) and a fresh --user-data-dir of its own.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { after, before } from 'node:test'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import { CONSOLE_ROOT } from '../../src/api/console/static-files.js'

export const CHROMIUM = process.env.TIDINGS_CHROMIUM ?? '/usr/bin/chromium'

const FLAGS = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does), or set TIDINGS_CHROMIUM`)
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 })
}

/** Chromium for the console's tests, which fail at once when the console was not built. */
export async function launchConsoleBrowser(): Promise<Browser> {
  assert.ok(existsSync(`${CONSOLE_ROOT}index.html`), 'the console is not built: run npm run build')
  return launchChromium()
}

/**
 * One Chromium for all the suites of a test file (launching one takes seconds): launched in the `before` of the
 * describe this is called in, closed in its `after`. Its `browser` is there from that `before` on.
 */
export function sharedConsoleBrowser(): { readonly browser: Browser } {
  let launched: Browser | undefined
  before(async () => {
    launched = await launchConsoleBrowser()
  })
  after(() => launched?.close())
  return {
    get browser() {
      if (!launched) throw new Error('Chromium is launched in the before hook: use the browser in a hook or a test')
      return launched
    },
  }
}

/**
 * A desktop-sized tab in a context of its own (its own cookies), every wait bounded by `waitMs`, and what its page
 * logs as errors pushed to `errors`: a CSP violation would show there.
 */
export async function openConsoleTab(browser: Browser, s: { waitMs: number; errors: string[]; options?: BrowserContextOptions }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...s.options })
  context.setDefaultTimeout(s.waitMs)
  const page = await context.newPage()
  page.on('console', (message) => {
    if (message.type() === 'error') s.errors.push(message.text())
  })
  return { context, page }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * The serious and critical accessibility violations axe-core finds on the page. Its source is evaluated through
 * the DevTools protocol, which the page's CSP does not govern: the page itself still allows no inline script.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Injected once a document (~550 KB of script to parse): hash routes keep the same document from page to page.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe
    return (await axe.run()).violations
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** Whether the page is wider than the window: a reader would have to scroll sideways. */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
}

/** The two widths every console page is checked at: a small phone's and a desktop's. */
export const CHECKED_WIDTHS = [375, 1440] as const

/**
 * The page as it stands fits both CHECKED_WIDTHS without sideways scrolling and has no serious axe violation at
 * either. It leaves the tab at 1440×800, the last size checked: the tests written before this helper go on from there.
 */
export async function fitsAndPassesAxe(page: Page, name: string): Promise<void> {
  for (const width of CHECKED_WIDTHS) {
    await page.setViewportSize({ width, height: 800 })
    assert.equal(await scrollsSideways(page), false, `${name} at ${width} px`)
    assert.deepEqual(await seriousAxeViolations(page), [], `axe on ${name} at ${width} px`)
  }
}

/** Signs in on the console served at `base` with the account's API credentials, as a reader would. */
export async function signIn(page: Page, base: string, account: { clientId: string; clientSecret: string }): Promise<void> {
  await page.goto(`${base}/console/`)
  await page.getByLabel('Client ID').fill(account.clientId)
  await page.getByLabel('Client secret').fill(account.clientSecret)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** Opens a console page by its link in the navigation and waits for its heading. */
export async function openPage(page: Page, title: string): Promise<void> {
  await page.getByRole('link', { name: title, exact: true }).click()
  await page.getByRole('heading', { name: title, level: 1 }).waitFor()
}

/**
 * Makes every document of the context record the CSP violations it meets, read back by `cspViolationsOf`. A
 * sandboxed frame runs no script (this one included), so the refused loads of tenant HTML in it are not counted: only
 * the console's own documents'.
 */
export async function recordCspViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = []
    Object.assign(window, { cspViolations: seen })
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`))
  })
}

/** The CSP violations the page's document recorded since it loaded (`recordCspViolations`). */
export async function cspViolationsOf(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
}
