// Postfix's SMTP test programs, without installing the mail system: `apt-get download postfix` into
// bench/.cache/postfix/ (git-ignored), `dpkg-deb -x` of the package, and its two test programs run from there:
//
// - smtp-sink: an SMTP server that accepts and throws away every message (`-c` prints running counters, which
//   are read here to count the messages);
// - smtp-source: an SMTP load generator (parallel sessions, fixed-size messages).
//
// Both live in usr/sbin/ of the package and link against Postfix's own shared libraries (libpostfix-util.so,
// libpostfix-global.so), which the package keeps in usr/lib/postfix/, outside the loader's search path:
// LD_LIBRARY_PATH points there. As root, smtp-sink refuses to run without `-u USER` (it drops to that user
// after binding its socket), so it gets `-u nobody` when this process runs as root.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { ROOT } from './env.js'

export const POSTFIX_CACHE = join(ROOT, 'bench', '.cache', 'postfix')
const EXTRACTED = join(POSTFIX_CACHE, 'root')

export interface PostfixTools {
  smtpSink: string
  smtpSource: string
  /** The package's version, from its control file. */
  version: string
  /** Environment for running the tools (LD_LIBRARY_PATH with the package's libraries). */
  env: NodeJS.ProcessEnv
}

let tools: PostfixTools | undefined

/** The postfix test programs, downloaded and unpacked on first use; throws unless they run. */
export function postfixTools(): PostfixTools {
  if (tools) return tools
  const smtpSink = join(EXTRACTED, 'usr', 'sbin', 'smtp-sink')
  const smtpSource = join(EXTRACTED, 'usr', 'sbin', 'smtp-source')
  if (!existsSync(smtpSink) || !existsSync(smtpSource)) unpack(download())
  const libs = join(EXTRACTED, 'usr', 'lib', 'postfix')
  const env = { ...process.env, LD_LIBRARY_PATH: [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') }
  // Without arguments each program prints its usage and exits 1; a missing library fails before that.
  for (const program of [smtpSink, smtpSource]) {
    const probe = spawnSync(program, [], { env, encoding: 'utf8' })
    if (probe.error) throw probe.error
    if (!/usage:/.test(`${probe.stderr}${probe.stdout}`)) throw new Error(`${program} does not run:\n${probe.stderr}${probe.stdout}`)
  }
  tools = { smtpSink, smtpSource, version: packageVersion(), env }
  return tools
}

/** `apt-get download postfix` into the cache (after `apt-get update` if the package lists lack it); the .deb's path. */
function download(): string {
  mkdirSync(POSTFIX_CACHE, { recursive: true })
  const existing = debIn(POSTFIX_CACHE)
  if (existing) return existing
  // As root, apt fetches as the `_apt` user, which cannot write here; root may fetch itself instead.
  const sandbox = process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : []
  const get = () => spawnSync('apt-get', [...sandbox, 'download', 'postfix'], { cwd: POSTFIX_CACHE, encoding: 'utf8' })
  let result = get()
  if (result.status !== 0) {
    console.log('apt-get download postfix failed; running apt-get update …')
    const update = spawnSync('apt-get', ['update'], { encoding: 'utf8' })
    if (update.status !== 0) throw new Error(`apt-get update failed (${update.status}):\n${update.stderr}`)
    result = get()
  }
  if (result.error) throw new Error(`apt-get is needed to fetch postfix's smtp-sink and smtp-source: ${result.error.message}`)
  const deb = debIn(POSTFIX_CACHE)
  if (result.status !== 0 || !deb) throw new Error(`apt-get download postfix failed (${result.status}):\n${result.stderr}${result.stdout}`)
  console.log(`downloaded ${deb}`)
  return deb
}

function debIn(dir: string): string | undefined {
  const name = readdirSync(dir).filter((f) => /^postfix_.*\.deb$/.test(f)).sort().at(-1)
  return name === undefined ? undefined : join(dir, name)
}

function unpack(deb: string): void {
  rmSync(EXTRACTED, { recursive: true, force: true })
  const r = spawnSync('dpkg-deb', ['-x', deb, EXTRACTED], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`dpkg-deb -x ${deb} failed (${r.status ?? r.error?.message}):\n${r.stderr}`)
}

function packageVersion(): string {
  const deb = debIn(POSTFIX_CACHE)
  if (!deb) return 'unknown'
  const r = spawnSync('dpkg-deb', ['-f', deb, 'Version'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : 'unknown'
}

// ---- smtp-sink ------------------------------------------------------------------------------------------

export interface PostfixSink {
  port: number
  /** Messages received so far (the `mesg=` counter smtp-sink prints with -c). */
  count(): number
  stop(): Promise<void>
}

/**
 * smtp-sink on 127.0.0.1:port: every message accepted and discarded, a backlog of 1,024 connections, up to
 * 1,024 at a time (-m), IPv4 only, running counters (-c) on its stdout. Resolves once it answers with its 220
 * greeting.
 */
export async function startPostfixSink(port: number): Promise<PostfixSink> {
  const { smtpSink, env } = postfixTools()
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : []
  const child = spawn(smtpSink, [...asRoot, '-4', '-c', '-m', '1024', `127.0.0.1:${port}`, '1024'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  // -c writes "sess=S quit=Q mesg=M\r" after each session, QUIT and message: keep the last M. A chunk may end
  // inside a number, so the end of the previous chunk is kept and searched again.
  let messages = 0
  let carry = ''
  child.stdout!.setEncoding('latin1')
  child.stdout!.on('data', (chunk: string) => {
    const text = carry + chunk
    const end = text.lastIndexOf('\r')
    const at = end < 0 ? -1 : text.lastIndexOf('mesg=', end)
    const match = at < 0 ? null : /^mesg=(\d+)$/.exec(text.slice(at, end))
    if (match) messages = Math.max(messages, Number(match[1]))
    carry = text.slice(-64)
  })
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  await waitForGreeting(port, child, () => stderr)
  return {
    port,
    count: () => messages,
    stop: () => stopChild(child, exited),
  }
}

async function waitForGreeting(port: number, child: ChildProcess, output: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`smtp-sink exited (${child.exitCode ?? child.signalCode}):\n${output()}`)
    if (await greets(port)) return
    if (Date.now() > deadline) throw new Error(`smtp-sink did not answer on port ${port} within ${timeoutMs} ms:\n${output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Whether an SMTP server on the port sends a 220 greeting (then the connection is closed with QUIT). */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(2000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('data', (data: Buffer) => {
      const ok = data.toString().startsWith('220')
      if (ok) socket.end('QUIT\r\n')
      done(ok)
    })
  })
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}

// ---- smtp-source ----------------------------------------------------------------------------------------

export interface SmtpSourceOptions {
  port: number
  messages: number
  /** Parallel SMTP sessions (-s). */
  sessions: number
  /** Payload bytes per message (-l); smtp-source adds about 130 bytes of headers (From, To, Date, Message-Id). */
  sizeBytes: number
  /**
   * Send every message of a session over one connection (-d), as a pooled SMTP client does; the default. With
   * false smtp-source opens a new connection (and says HELO) for every message, its own default.
   */
  reuseConnections?: boolean
  from?: string
  to?: string
}

export interface SmtpSourceResult {
  command: string
  messages: number
  seconds: number
  messagesPerSecond: number
}

/** Runs smtp-source to 127.0.0.1:port until it has sent every message; times it from spawn to exit. */
export function runSmtpSource(options: SmtpSourceOptions): Promise<SmtpSourceResult> {
  const { smtpSource, env } = postfixTools()
  const args = [
    ...(options.reuseConnections === false ? [] : ['-d']),
    '-4',
    '-s', String(options.sessions),
    '-m', String(options.messages),
    '-l', String(options.sizeBytes),
    '-f', options.from ?? 'bench@source.example.com',
    '-t', options.to ?? 'sink@sink.example.com',
    '-M', 'localhost',
    `127.0.0.1:${options.port}`,
  ]
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(smtpSource, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      const seconds = (performance.now() - started) / 1000
      if (code !== 0) return reject(new Error(`smtp-source ${args.join(' ')} failed (${code ?? signal}):\n${stderr}`))
      resolve({ command: `smtp-source ${args.join(' ')}`, messages: options.messages, seconds, messagesPerSecond: options.messages / seconds })
    })
  })
}
