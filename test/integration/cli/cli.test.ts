// The `tidings` binary as an operator runs it: accounts, config, and serve with logs and graceful shutdown.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { connect } from 'node:net'
import { createInterface } from 'node:readline'
import pino from 'pino'
import { DIALECTS, createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { loadConfig } from '../../../src/config/load.js'
import { buildServer } from '../../../src/api/server.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import { GENERATION_CHECK_MS } from '../../../src/services/accounts/token-cache.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

for (const dialect of DIALECTS) {
  describe(`tidings CLI on ${dialect}`, () => {
    let database: TestDatabase
    let env: NodeJS.ProcessEnv
    const tidings = async (...args: string[]) => (await run(process.execPath, [...CLI, ...args], { env })).stdout

    before(async () => {
      database = await createTestDatabase(dialect)
      env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'info' }
    })
    after(() => database.drop())

    it('creates an account printing id, client_id and client_secret, lists it and credits it', async () => {
      const created = JSON.parse(await tidings('accounts', 'create', '--name', 'Acme', '--balance', '12.5', '--currency', 'eur')) as Record<string, unknown>
      assert.deepEqual(Object.keys(created).sort(), ['client_id', 'client_secret', 'id'])
      assert.equal(typeof created.id, 'number')
      const listed = JSON.parse(await tidings('accounts', 'list')) as Record<string, unknown>[]
      const acme = listed.find((a) => a.id === created.id)
      assert.deepEqual({ ...acme }, { id: created.id, name: 'Acme', client_id: created.client_id, currency: 'EUR', plan: 'pro', status: 'active', balance: 12.5 })
      assert.ok(!JSON.stringify(listed).includes(String(created.client_secret)), 'the secret is never shown again')
      const credited = JSON.parse(await tidings('accounts', 'credit', String(created.id), '7.25')) as { balance: number }
      assert.equal(credited.balance, 19.75)
    })

    it('refuses a bad amount and an unknown account with a message and a non-zero exit', async () => {
      await assert.rejects(tidings('accounts', 'credit', '999999', '5'), /account 999999 not found/)
      await assert.rejects(tidings('accounts', 'create', '--name', 'x', '--balance', 'lots'), /amount must be a decimal/)
    })

    it('rotates a secret, disables, enables, revokes tokens and deletes accounts; a running server follows within its generation check', async () => {
      const clock = { now: Date.now() }
      const config = loadConfig({ env: {}, overrides: { databaseUrl: database.url, logLevel: 'silent' } })
      const deps = { config, db: database.storage.db, dialect, now: () => clock.now, log: pino({ level: 'silent' }) }
      const server = await buildServer(deps)
      try {
        const tokenCall = (clientId: string, secret: string) =>
          server.inject({ method: 'POST', url: '/oauth/access_token', payload: { client_id: clientId, client_secret: secret } })
        const tokenOf = async (clientId: string, secret: string) => (await tokenCall(clientId, secret)).json<{ access_token: string }>().access_token
        const listWith = async (token: string) => (await server.inject({ method: 'GET', url: '/addressbooks', headers: { authorization: `Bearer ${token}` } })).statusCode
        const rotated = await accounts.createAccount(deps, { name: 'rotated' })
        const disabled = await accounts.createAccount(deps, { name: 'disabled' })
        const revoked = await accounts.createAccount(deps, { name: 'revoked' })
        const deleted = await accounts.createAccount(deps, { name: 'deleted' })
        const tokens = await Promise.all([rotated, disabled, revoked, deleted].map((a) => tokenOf(a.client_id, a.client_secret)))
        for (const token of tokens) assert.equal(await listWith(token), 200)

        const [rotation, disabling, revoking, deletion] = await Promise.all([
          tidings('accounts', 'rotate-secret', String(rotated.id)),
          tidings('accounts', 'disable', String(disabled.id)),
          tidings('accounts', 'revoke-tokens', String(revoked.id)),
          tidings('accounts', 'delete', String(deleted.id), '--yes'),
        ])
        const secret = JSON.parse(rotation) as Record<string, string>
        assert.deepEqual(Object.keys(secret).sort(), ['client_id', 'client_secret'])
        assert.deepEqual(JSON.parse(disabling), { id: disabled.id, status: 'disabled' })
        assert.deepEqual(JSON.parse(revoking), { id: revoked.id, revoked_tokens: 1 })
        assert.deepEqual(JSON.parse(deletion), { id: deleted.id, status: 'deleted' })

        clock.now += GENERATION_CHECK_MS
        for (const token of tokens) assert.equal(await listWith(token), 401)
        assert.equal((await tokenCall(rotated.client_id, rotated.client_secret)).statusCode, 401, 'the old secret')
        assert.equal(await listWith(await tokenOf(secret.client_id!, secret.client_secret!)), 200, 'the new secret')
        assert.equal((await tokenCall(disabled.client_id, disabled.client_secret)).statusCode, 401)
        assert.equal((await tokenCall(deleted.client_id, deleted.client_secret)).statusCode, 401)
        assert.equal(await listWith(await tokenOf(revoked.client_id, revoked.client_secret)), 200, 'revoked tokens, not credentials')

        assert.deepEqual(JSON.parse(await tidings('accounts', 'enable', String(disabled.id))), { id: disabled.id, status: 'active' })
        assert.equal(await listWith(await tokenOf(disabled.client_id, disabled.client_secret)), 200)
        await assert.rejects(tidings('accounts', 'enable', String(deleted.id)), new RegExp(`account ${deleted.id} not found`))
        assert.deepEqual(
          JSON.parse(await tidings('accounts', 'delete', String(deleted.id), '--yes')),
          { id: deleted.id, status: 'deleted', note: 'was already deleted; its campaigns that could still send are canceled' },
          'deleting again answers, and cancels what a failed first run left',
        )
      } finally {
        await server.close()
      }
    })

    it('prints the effective config with the database password hidden', async () => {
      const shown = JSON.parse(await tidings('config')) as Record<string, unknown>
      assert.equal(shown.port, 8080)
      if (dialect === 'postgres') {
        assert.ok(!String(shown.databaseUrl).includes('tidings-test'), 'password hidden')
        assert.match(String(shown.databaseUrl), /\*\*\*\*\*/)
      }
    })

    it('serves with JSON logs carrying the request id, and finishes an in-flight request on SIGTERM', async () => {
      const created = JSON.parse(await tidings('accounts', 'create', '--name', 'Server')) as { client_id: string; client_secret: string }
      // At debug, for the line of a request's arrival (api/access-log.ts) that tells when to stop the server below.
      const server = spawn(process.execPath, [...CLI, 'serve', '--port', '0'], { env: { ...env, LOG_LEVEL: 'debug' }, stdio: ['ignore', 'pipe', 'inherit'] })
      const lines: Record<string, unknown>[] = []
      const waiters: [(line: Record<string, unknown>) => boolean, (line: Record<string, unknown>) => void][] = []
      createInterface({ input: server.stdout! }).on('line', (text) => {
        const line = JSON.parse(text) as Record<string, unknown>
        lines.push(line)
        for (const [match, resolve] of waiters) if (match(line)) resolve(line)
      })
      const waitFor = (match: (line: Record<string, unknown>) => boolean) =>
        new Promise<Record<string, unknown>>((resolve) => {
          const found = lines.find(match)
          if (found) resolve(found)
          else waiters.push([match, resolve])
        })
      const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)))

      const address = String((await waitFor((l) => l.msg === 'tidings is serving')).address)
      const token = await fetch(`${address}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'trace-123' },
        body: JSON.stringify({ client_id: created.client_id, client_secret: created.client_secret }),
      }).then((r) => r.json() as Promise<{ access_token: string }>)
      const logged = await waitFor((l) => l.reqId === 'trace-123' && l.msg === 'request completed')
      assert.equal((logged.res as { statusCode: number }).statusCode, 200)
      assert.ok(!lines.some((l) => JSON.stringify(l).includes(created.client_secret)), 'no secret in the logs')

      // Send the headers and half the body, stop the server, then send the rest: the request must complete.
      const body = JSON.stringify({ bookName: 'in flight' })
      const { hostname, port } = new URL(address)
      const socket = connect(Number(port), hostname)
      await new Promise((resolve) => socket.once('connect', resolve))
      socket.write(`POST /addressbooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token.access_token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`)
      await waitFor((l) => l.msg === 'incoming request' && (l.req as { url: string }).url === '/addressbooks')
      server.kill('SIGTERM')
      await waitFor((l) => l.msg === 'shutting down')
      const answer = new Promise<string>((resolve) => {
        let data = ''
        socket.on('data', (chunk) => {
          data += chunk.toString()
          if (data.includes('}')) resolve(data)
        })
        socket.on('close', () => resolve(data))
      })
      socket.write(body.slice(5))
      const raw = await answer
      assert.match(raw, /^HTTP\/1\.1 200/)
      assert.match(raw, /\{"id":\d+\}/)
      assert.equal(await exited, 0)
      assert.ok(lines.some((l) => l.msg === 'tidings stopped'))
    })
  })
}

// The config is printed without opening the database: once is enough, on no dialect in particular.
describe('tidings config', () => {
  it('hides every secret in the printed config: a key with a colon, a password in the query, SMTP and DKIM credentials', async () => {
    const secrets = { TIDINGS_SECRET_KEY: 'abc:def-a-key-of-more-than-32-bytes', TIDINGS_SECRET_KEY_OLD: 'old:key-of-more-than-32-bytes-too!', TIDINGS_SMTP_URL: 'smtp://u:smtp-pass@relay.example:587', TIDINGS_DKIM_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----' }
    const { stdout } = await run(process.execPath, [...CLI, 'config'], { env: { ...process.env, ...secrets, DATABASE_URL: 'postgres://app@db.example/tidings?password=query-pass' } })
    for (const secret of ['abc:def', 'old:key', 'smtp-pass', 'MIIEv', 'query-pass']) assert.ok(!stdout.includes(secret), `${secret} in ${stdout}`)
    const refused = await run(process.execPath, [...CLI, 'config'], { env: { ...process.env, TIDINGS_SECRET_KEY: 'too short' } }).catch((err: { code: number; stderr: string }) => err)
    assert.equal((refused as { code: number }).code, 1)
    assert.match((refused as { stderr: string }).stderr, /TIDINGS_SECRET_KEY\): must be at least 32 bytes/)
  })
})
