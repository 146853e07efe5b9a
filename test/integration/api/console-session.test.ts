// The web console's sign-in (POST/GET/DELETE /console/session) and the API's acceptance of its session cookie: only
// with the session's CSRF token, never across accounts, not after sign-out, idle or absolute expiry, or a revocation;
// sign-in shares the token call's brute-force throttle; cookie calls count against the request limit like bearer ones.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { consoleCall, consoleSignIn, openConsoleSession } from '../../helpers/console-session.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import * as lifecycle from '../../../src/services/accounts/account-lifecycle.js'
import { MAX_SESSIONS_PER_ACCOUNT, purgeExpiredSessions } from '../../../src/services/accounts/console-sessions.js'

const IDLE_SECONDS = 600
const SESSION_SECONDS = 3600
const MAX_FAILURES = 3

const credentialsOf = (a: TestAccount) => ({ client_id: a.clientId, client_secret: a.clientSecret })

for (const dialect of DIALECTS) {
  describe(`web console sessions on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { consoleIdleSeconds: IDLE_SECONDS, consoleSessionSeconds: SESSION_SECONDS, loginMaxFailures: MAX_FAILURES })
    })
    after(() => t.close())

    const listNames = async (account: TestAccount) =>
      (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ name: string }[]>().map((b) => b.name)

    it('refuses wrong credentials with one answer whichever field is wrong, and sets no cookie', async () => {
      const account = await t.account()
      for (const wrong of [
        { client_id: account.clientId, client_secret: 'wrong' },
        { client_id: 'nobody', client_secret: account.clientSecret },
        { api_key: 'tdk_wrong' },
      ]) {
        const answer = await consoleSignIn(t, wrong)
        assert.equal(answer.statusCode, 401)
        assert.deepEqual(answer.json(), { error_code: 401, message: 'Client authentication failed.' })
        assert.equal(answer.headers['set-cookie'], undefined)
      }
    })

    it('takes a NUL in a client_id for a wrong credential, not a 500 (PostgreSQL text cannot hold it), here and at the token call', async () => {
      const account = await t.account()
      const signIn = await consoleSignIn(t, { client_id: '\u0000\u0007', client_secret: account.clientSecret })
      assert.equal(signIn.statusCode, 401, signIn.body)
      const token = await t.app.inject({ method: 'POST', url: '/oauth/access_token', payload: { client_id: `${account.clientId}\u0000`, client_secret: account.clientSecret } })
      assert.equal(token.statusCode, 401, token.body)
      assert.equal(token.json<{ error: string }>().error, 'invalid_client')
    })

    it('signs in with a cookie that is HttpOnly, SameSite=Strict, Path=/, kept only as a digest on the server', async () => {
      const account = await t.account()
      const session = await openConsoleSession(t, credentialsOf(account))
      assert.match(session.setCookie, /^tidings_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/)
      const id = session.cookie.split('=')[1]!
      const rows = await t.deps.db.selectFrom('console_sessions').select('session_hash').where('account_id', '=', account.id).execute()
      assert.equal(rows.length, 1)
      assert.notEqual(rows[0]!.session_hash, id)
      assert.notEqual(session.csrfToken, id)
      const read = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } })
      assert.equal(read.statusCode, 200)
      assert.equal(read.json<{ csrf_token: string }>().csrf_token, session.csrfToken)
      assert.equal(read.headers['cache-control'], 'no-store')
    })

    it('answers API calls with the cookie only together with its CSRF token; without it nothing changes', async () => {
      const account = await t.account()
      const session = await openConsoleSession(t, credentialsOf(account))
      for (const csrfToken of [null, '', 'x'.repeat(43), session.csrfToken.slice(0, -1)]) {
        const created = await consoleCall(t, session, { method: 'POST', url: '/addressbooks', payload: { bookName: 'forged' }, csrfToken })
        assert.equal(created.statusCode, 403, String(csrfToken))
        assert.deepEqual(created.json(), { error_code: 403, message: 'A console session needs its CSRF token in the X-CSRF-Token header' })
        assert.equal((await consoleCall(t, session, { method: 'GET', url: '/addressbooks', csrfToken })).statusCode, 403)
      }
      assert.deepEqual(await listNames(account), [])
      const created = await consoleCall(t, session, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Real' } })
      assert.equal(created.statusCode, 200, created.body)
      assert.deepEqual(await listNames(account), ['Real'])
    })

    it('never reaches another account: its data stays unseen, and one session’s token does not unlock another’s cookie', async () => {
      const a = await t.account()
      const b = await t.account()
      const bList = (await t.call(b, { method: 'POST', url: '/addressbooks', payload: { bookName: 'B only' } })).json<{ id: number }>().id
      const sessionA = await openConsoleSession(t, credentialsOf(a))
      const sessionB = await openConsoleSession(t, credentialsOf(b))
      assert.deepEqual((await consoleCall(t, sessionA, { method: 'GET', url: '/addressbooks' })).json(), [])
      assert.equal((await consoleCall(t, sessionA, { method: 'GET', url: `/addressbooks/${bList}` })).statusCode, 404)
      assert.equal((await consoleCall(t, sessionA, { method: 'DELETE', url: `/addressbooks/${bList}` })).statusCode, 404)
      const crossed = await consoleCall(t, sessionB, { method: 'DELETE', url: `/addressbooks/${bList}`, csrfToken: sessionA.csrfToken })
      assert.equal(crossed.statusCode, 403)
      assert.deepEqual(await listNames(b), ['B only'])
    })

    it('lets a bearer credential win over the cookie: a wrong token with a good session is still 401', async () => {
      const account = await t.account()
      const session = await openConsoleSession(t, credentialsOf(account))
      const answer = await consoleCall(t, session, { method: 'GET', url: '/addressbooks', headers: { authorization: 'Bearer wrong' } })
      assert.equal(answer.statusCode, 401)
    })

    it('ends at sign-out: the old cookie and token get 401 at once', async () => {
      const account = await t.account()
      const session = await openConsoleSession(t, credentialsOf(account))
      const forged = await consoleCall(t, session, { method: 'DELETE', url: '/console/session', csrfToken: null })
      assert.equal(forged.statusCode, 403)
      const out = await consoleCall(t, session, { method: 'DELETE', url: '/console/session' })
      assert.equal(out.statusCode, 200)
      assert.match(String(out.headers['set-cookie']), /^tidings_console=; Max-Age=0;/)
      const after = await consoleCall(t, session, { method: 'GET', url: '/addressbooks' })
      assert.equal(after.statusCode, 401)
      assert.deepEqual(after.json(), { error_code: 401, message: 'Invalid, expired or missing access token' })
      assert.equal((await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } })).statusCode, 401)
    })

    it('keeps an account’s newest sessions only: signing in again and again ends the oldest, not another account’s', async () => {
      const [account, other] = [await t.account(), await t.account()]
      const others = await openConsoleSession(t, credentialsOf(other))
      const sessions = []
      for (let i = 0; i <= MAX_SESSIONS_PER_ACCOUNT; i++) {
        sessions.push(await openConsoleSession(t, credentialsOf(account)))
        t.clock.advance(1)
      }
      const stored = await t.deps.db.selectFrom('console_sessions').select('session_hash').where('account_id', '=', account.id).execute()
      assert.equal(stored.length, MAX_SESSIONS_PER_ACCOUNT)
      assert.equal((await consoleCall(t, sessions[0]!, { method: 'GET', url: '/addressbooks' })).statusCode, 401, 'the oldest ended')
      assert.equal((await consoleCall(t, sessions.at(-1)!, { method: 'GET', url: '/addressbooks' })).statusCode, 200)
      assert.equal((await consoleCall(t, sessions[1]!, { method: 'GET', url: '/addressbooks' })).statusCode, 200)
      assert.equal((await consoleCall(t, others, { method: 'GET', url: '/addressbooks' })).statusCode, 200, "another account's session stays")
    })

    it('ends after the idle time without requests, and at the absolute expiry however active', async () => {
      const account = await t.account()
      const idle = await openConsoleSession(t, credentialsOf(account))
      const busy = await openConsoleSession(t, credentialsOf(account))
      const list = (s: typeof idle) => consoleCall(t, s, { method: 'GET', url: '/addressbooks' })
      // Requests every 9 minutes keep `busy` alive past the 10-minute idle time; `idle` is gone by then.
      for (let minutes = 9; minutes < 60; minutes += 9) {
        t.clock.advance(9 * 60_000)
        assert.equal((await list(busy)).statusCode, 200, `after ${minutes} minutes`)
      }
      assert.equal((await list(idle)).statusCode, 401)
      t.clock.advance(6 * 60_000 + 1000)
      assert.equal((await list(busy)).statusCode, 401, 'past the absolute expiry of an hour')
      assert.ok((await purgeExpiredSessions(t.deps)) >= 2)
      const left = await t.deps.db.selectFrom('console_sessions').select('session_hash').where('account_id', '=', account.id).execute()
      assert.deepEqual(left, [])
    })

    it('ends when the account’s tokens are revoked or its secret rotated, and when the API key signed in with is revoked', async () => {
      const account = await t.account()
      const bySecret = await openConsoleSession(t, credentialsOf(account))
      const key = await accounts.createApiKey(t.deps, account.id, 'console')
      const byKey = await openConsoleSession(t, { api_key: key.api_key })
      assert.equal((await consoleCall(t, byKey, { method: 'GET', url: '/addressbooks' })).statusCode, 200)
      await accounts.revokeApiKey(t.deps, account.id, key.id)
      assert.equal((await consoleCall(t, byKey, { method: 'GET', url: '/addressbooks' })).statusCode, 401)
      assert.equal((await consoleCall(t, bySecret, { method: 'GET', url: '/addressbooks' })).statusCode, 200)
      await lifecycle.revokeTokens(t.deps, account.id)
      assert.equal((await consoleCall(t, bySecret, { method: 'GET', url: '/addressbooks' })).statusCode, 401)
      assert.equal((await consoleSignIn(t, { api_key: key.api_key })).statusCode, 401)
    })

    it('counts failed sign-ins with failed token calls: past the limit even the right secret waits (401 + Retry-After)', async () => {
      const account = await t.account()
      await consoleSignIn(t, { client_id: account.clientId, client_secret: 'wrong 1' })
      await t.app.inject({ method: 'POST', url: '/oauth/access_token', payload: { client_id: account.clientId, client_secret: 'wrong 2' } })
      await consoleSignIn(t, { client_id: account.clientId, client_secret: 'wrong 3' })
      const refused = await consoleSignIn(t, credentialsOf(account))
      assert.equal(refused.statusCode, 401)
      assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/)
      assert.equal(refused.headers['set-cookie'], undefined)
    })

    it('accepts sign-in only as JSON from its own origin (no login CSRF from another site’s form)', async () => {
      const account = await t.account()
      const form = await t.app.inject({
        method: 'POST',
        url: '/console/session',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `client_id=${account.clientId}&client_secret=${account.clientSecret}`,
      })
      assert.equal(form.statusCode, 403)
      assert.equal(form.headers['set-cookie'], undefined)
      const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }]
      for (const headers of foreign) {
        const answer = await consoleSignIn(t, credentialsOf(account), headers)
        assert.equal(answer.statusCode, 403, JSON.stringify(headers))
        assert.deepEqual(answer.json(), { error_code: 403, message: 'Sign in from the console page itself' })
      }
      const own = await consoleSignIn(t, credentialsOf(account), { origin: 'http://localhost:80', host: 'localhost:80', 'sec-fetch-site': 'same-origin' })
      assert.equal(own.statusCode, 200, own.body)
    })

    it('documents its routes in /openapi.json as a Tidings extension', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>()
      const path = doc.paths['/console/session']
      assert.ok(path)
      for (const method of ['get', 'post', 'delete']) assert.equal(path[method]?.['x-tidings-console'], true, method)
    })
  })

  describe(`web console sessions and the request limit on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { apiRatePerSecond: 50, apiBurst: 10 })
    })
    after(() => t.close())

    it('counts cookie calls against the account’s limit like bearer calls (429 past the burst)', async () => {
      const account = await t.account()
      const session = await openConsoleSession(t, credentialsOf(account))
      const statuses: number[] = []
      for (let i = 0; i < 12; i++) statuses.push((await consoleCall(t, session, { method: 'GET', url: '/addressbooks' })).statusCode)
      assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429])
      // The same bucket: the account's bearer calls are refused too.
      assert.equal((await t.call(account, { method: 'GET', url: '/addressbooks' })).statusCode, 429)
    })
  })
}
