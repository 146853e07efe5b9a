// `tidings serve` (API and dispatcher in one process) over a PostgreSQL that goes away and comes back: the
// process stays up, the API answers 503 with the SendPulse error body at once instead of hanging, the
// dispatcher pauses with one warning instead of a loop of errors, and both resume by themselves. The
// cluster is this file's own (the suite's shared one must not stop under the other tests).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { startEmbeddedPostgres, type PostgresServer } from '../../helpers/postgres.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)
const DISPATCHER_COMPONENTS = new Set(['jobs', 'outbox', 'email campaigns', 'sms campaigns', 'webhooks'])
/** The API must answer within this while the database is away: its connect timeout is 5 s, a refused connection instant. */
const ANSWER_WITHIN_MS = 8000

type LogLine = Record<string, unknown> & { level: number; msg: string; component?: string }

describe('tidings serve when PostgreSQL goes away', () => {
  let pg: PostgresServer
  let server: ChildProcess | undefined
  before(async () => {
    pg = await startEmbeddedPostgres()
  })
  after(async () => {
    server?.kill('SIGKILL')
    await pg.stop()
  })

  it('stays up, answers 503 while the database is down, and recovers by itself when it is back', async (t) => {
    const env = { ...process.env, DATABASE_URL: pg.url, LOG_LEVEL: 'info', TIDINGS_SMTP_URL: '' }
    const created = JSON.parse((await run(process.execPath, [...CLI, 'accounts', 'create', '--name', 'Outage'], { env })).stdout) as {
      client_id: string
      client_secret: string
    }
    server = spawn(process.execPath, [...CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    const lines: LogLine[] = []
    const serving = new Promise<LogLine>((resolve) =>
      createInterface({ input: server!.stdout! }).on('line', (text) => {
        const line = JSON.parse(text) as LogLine
        lines.push(line)
        if (line.msg === 'tidings is serving') resolve(line)
      }),
    )
    let exitCode: number | null | undefined
    const exited = new Promise<void>((resolve) => server!.on('exit', (code) => resolve(void (exitCode = code))))
    const address = String((await serving).address)
    const api = (path: string, init: RequestInit = {}) => fetch(`${address}${path}`, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })
    const token = ((await (await api('/oauth/access_token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: created.client_id, client_secret: created.client_secret }),
    })).json()) as { access_token: string }).access_token
    const authorized = { authorization: `Bearer ${token}` }
    assert.equal((await api('/addressbooks', { headers: authorized })).status, 200)

    const linesBefore = lines.length
    await pg.halt()
    const asked = Date.now()
    const down = await api('/addressbooks', { headers: authorized })
    t.diagnostic(`the API answered ${down.status} ${Date.now() - asked} ms after PostgreSQL stopped`)
    assert.equal(down.status, 503)
    const body = (await down.json()) as Record<string, unknown>
    assert.deepEqual(Object.keys(body).sort(), ['error_code', 'message'])
    assert.equal(body.error_code, 503)
    assert.equal((await api('/addressbooks', { method: 'POST', headers: { ...authorized, 'content-type': 'application/json' }, body: '{"bookName":"x"}' })).status, 503)
    const health = await api('/healthz')
    t.diagnostic(`/healthz while the database is down: ${health.status} ${await health.text()}`)
    assert.equal(health.status, 503)
    // A JSON error on the token call kills the npm SDK's process (COMPAT.md): a 503 there has a plain-text body.
    const tokenCall = await api('/oauth/access_token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: created.client_id, client_secret: created.client_secret }),
    })
    assert.equal(tokenCall.status, 503)
    assert.match(tokenCall.headers.get('content-type') ?? '', /^text\/plain/)

    // Long enough for every poller of the dispatcher to fail several rounds at its usual pace (250-500 ms).
    await sleep(3000)
    assert.equal(exitCode, undefined, 'the process is still running')
    const dispatcherLines = lines.slice(linesBefore).filter((l) => DISPATCHER_COMPONENTS.has(String(l.component)))
    const pauses = dispatcherLines.filter((l) => l.level === 40)
    t.diagnostic(`the dispatcher logged while the database was down: ${dispatcherLines.map((l) => `${l.component}: ${l.msg}`).join(' | ')}`)
    for (const component of DISPATCHER_COMPONENTS) {
      const said = pauses.filter((l) => l.component === component).map((l) => l.msg)
      assert.deepEqual(said, ['database unavailable: pausing until it answers'], `${component} warns once`)
    }
    assert.deepEqual(dispatcherLines.filter((l) => l.level >= 50).map((l) => l.msg), [], 'no error loop')

    await pg.start()
    const back = Date.now()
    let status = 0
    while (status !== 200 && Date.now() - back < 60_000) {
      status = (await api('/addressbooks', { headers: authorized })).status
      if (status !== 200) await sleep(100)
    }
    assert.equal(status, 200)
    t.diagnostic(`the API answered 200 again ${((Date.now() - back) / 1000).toFixed(2)} s after PostgreSQL was back`)

    // The dispatcher resumes: a sender's activation code is queued in the outbox and sent (captured: no relay).
    const json = { ...authorized, 'content-type': 'application/json' }
    assert.equal((await api('/senders', { method: 'POST', headers: json, body: JSON.stringify({ email: 'me@example.org', name: 'Me' }) })).status, 200)
    assert.equal((await api('/senders/me@example.org/code', { headers: authorized })).status, 200)
    let outboxStatus: string | undefined
    while (outboxStatus !== 'captured' && Date.now() - back < 60_000) {
      outboxStatus = ((await (await api('/outbox', { headers: authorized })).json()) as { status: string }[])[0]?.status
      if (outboxStatus !== 'captured') await sleep(200)
    }
    assert.equal(outboxStatus, 'captured')
    t.diagnostic(`the dispatcher sent again ${((Date.now() - back) / 1000).toFixed(2)} s after PostgreSQL was back`)

    server.kill('SIGTERM')
    await exited
    assert.equal(exitCode, 0)
  })
})
