// Proves that a production install starts. The built package (package.json, package-lock.json, bin/, dist/)
// goes to a scratch directory with a copy of node_modules (hard links when possible: about 2 s for 235 MB),
// which `npm prune --omit=dev` reduces to what an operator installs; then `node bin/tidings.js serve` on a
// temporary SQLite database must answer GET /healthz and stop cleanly on SIGTERM. Run after `npm ci` (which
// builds dist/). Usage: npx tsx scripts/check-pruned-install.ts
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const STARTUP_TIMEOUT_MS = 30_000
const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`

function copyModules(from: string, to: string): void {
  try {
    execFileSync('cp', ['-al', from, to])
  } catch {
    // Another filesystem (or no GNU cp): a real copy.
    rmSync(to, { recursive: true, force: true })
    cpSync(from, to, { recursive: true, verbatimSymlinks: true })
  }
  // npm rewrites its record of the tree after pruning: written through a hard link, it could change the original.
  rmSync(join(to, '.package-lock.json'), { force: true })
}

/** Starts `serve` in `dir`: `address` resolves when it serves, or rejects with its output if it ends first. */
function serve(dir: string) {
  const env = { PATH: process.env.PATH, TIDINGS_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' }
  const child = spawn(process.execPath, ['bin/tidings.js', 'serve', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const output: string[] = []
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // A server that neither serves nor ends in time is ended, which rejects `address` with what it printed.
  const hung = setTimeout(() => child.kill('SIGKILL'), STARTUP_TIMEOUT_MS)
  const address = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(`${line}\n`)
      const parsed = JSON.parse(line) as { msg?: string; address?: string }
      if (parsed.msg === 'tidings is serving' && parsed.address) resolve(parsed.address)
    })
    void exited.then((code) => reject(new Error(`serve ended (${code ?? 'killed'}) before serving:\n${output.join('')}`)))
  }).finally(() => clearTimeout(hung))
  return { child, exited, address }
}

/** The web console (built into dist/console by `npm run build`) and its script load, under the console's CSP. */
async function checkConsole(address: string): Promise<void> {
  const page = await fetch(`${address}/console/`, { signal: AbortSignal.timeout(10_000) })
  const html = await page.text()
  if (page.status !== 200 || !page.headers.get('content-security-policy')?.includes("script-src 'self'")) {
    throw new Error(`GET /console/ answered ${page.status} without the console's CSP: ${html.slice(0, 200)}`)
  }
  const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1]
  if (!script) throw new Error(`GET /console/ names no script: ${html.slice(0, 200)}`)
  const asset = await fetch(`${address}${script}`, { signal: AbortSignal.timeout(10_000) })
  if (asset.status !== 200) throw new Error(`GET ${script} answered ${asset.status}`)
  console.log(`the pruned install serves the console: GET /console/ → 200, ${script} → 200 (${elapsed()})`)
}

const scratch = mkdtempSync(join(tmpdir(), 'tidings-pruned-'))
try {
  for (const entry of ['package.json', 'package-lock.json', 'bin', 'dist']) cpSync(entry, join(scratch, entry), { recursive: true })
  copyModules(realpathSync('node_modules'), join(scratch, 'node_modules'))
  execFileSync('npm', ['prune', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: scratch, stdio: ['ignore', 'ignore', 'inherit'] })
  if (existsSync(join(scratch, 'node_modules', 'typescript'))) throw new Error('npm prune --omit=dev left the devDependencies in place')
  console.log(`pruned install ready (${elapsed()})`)

  const server = serve(scratch)
  try {
    const address = await server.address
    const health = await fetch(`${address}/healthz`, { signal: AbortSignal.timeout(10_000) })
    const body = await health.text()
    if (health.status !== 200) throw new Error(`GET /healthz answered ${health.status}: ${body}`)
    console.log(`the pruned install serves: GET ${address}/healthz → ${health.status} ${body} (${elapsed()})`)
    await checkConsole(address)
  } finally {
    server.child.kill('SIGTERM')
  }
  const code = await server.exited
  if (code !== 0) throw new Error(`serve exited with ${code} on SIGTERM`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
