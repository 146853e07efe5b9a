// Debian's Chromium driven by playwright-core (Playwright's own browser download is not reachable here), with the
// flags this machine needs: without the background-networking ones Chromium keeps dialling Google's hosts, which the
// closed network refuses (/work/.library/env/machines/node.md). Playwright adds --headless, --no-sandbox (its
// chromiumSandbox option is off by default) and a fresh --user-data-dir of its own.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM = process.env.TIDINGS_CHROMIUM ?? '/usr/bin/chromium'

const FLAGS = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does), or set TIDINGS_CHROMIUM`)
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 })
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
  await page.evaluate(axeSource)
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
