// OAuth token call, bearer checks, throttling and API keys as COMPAT.md's Authentication section requires.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import { MAX_SECRET_CHECKS } from '../../../src/services/accounts/auth.js'
import { GENERATION_CHECK_MS } from '../../../src/services/accounts/token-cache.js'
import { scryptGauge } from '../../../src/lib/secrets.js'

const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed.',
  message: 'Client authentication failed.',
  error_code: 1,
}

for (const dialect of DIALECTS) {
  describe(`authentication on ${dialect}`, () => {
    let t: TestApp
    let creds: accounts.CreatedAccount

    before(async () => {
      t = await startTestApp(dialect, { loginMaxFailures: 3, loginMaxFailuresPerIp: 6, loginWindowSeconds: 60 })
      creds = await accounts.createAccount(t.deps, { name: 'auth' })
    })
    after(() => t.close())

    const tokenCall = (payload: string | object, contentType = 'application/json', ip = '10.0.0.1') =>
      t.app.inject({ method: 'POST', url: '/oauth/access_token', headers: { 'content-type': contentType }, payload, remoteAddress: ip })
    const listWith = (authorization: string) => t.app.inject({ method: 'GET', url: '/addressbooks', headers: { authorization } })

    it('issues a token for JSON credentials with exactly the three typed fields', async () => {
      const res = await tokenCall({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret })
      assert.equal(res.statusCode, 200)
      const body = res.json<Record<string, unknown>>()
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type'])
      assert.equal(typeof body.access_token, 'string')
      assert.equal(body.token_type, 'Bearer')
      assert.equal(body.expires_in, 3600)
      assert.equal((await listWith(`Bearer ${String(body.access_token)}`)).statusCode, 200)
    })

    it('issues a token for form-urlencoded credentials (PHP 1.x)', async () => {
      const form = `grant_type=client_credentials&client_id=${creds.client_id}&client_secret=${encodeURIComponent(creds.client_secret)}`
      const res = await tokenCall(form, 'application/x-www-form-urlencoded')
      assert.equal(res.statusCode, 200)
      assert.equal(typeof res.json<{ access_token: unknown }>().access_token, 'string')
    })

    it('stores only a digest of the token and a hash of the client secret', async () => {
      const res = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret })
      const token = res.json<{ access_token: string }>().access_token
      const stored = await t.deps.db.selectFrom('access_tokens').select('token_hash').execute()
      assert.ok(stored.every((r) => r.token_hash !== token))
      const account = await t.deps.db.selectFrom('accounts').select('client_secret_hash').where('client_id', '=', creds.client_id).executeTakeFirstOrThrow()
      assert.match(account.client_secret_hash, /^scrypt\$/)
      assert.ok(!account.client_secret_hash.includes(creds.client_secret))
    })

    it('answers wrong credentials, missing fields and other grant types with 401 invalid_client', async () => {
      const answers = [
        await tokenCall({ client_id: creds.client_id, client_secret: 'wrong' }, 'application/json', '10.0.1.1'),
        await tokenCall({ client_id: 'nobody', client_secret: 'x' }, 'application/json', '10.0.1.2'),
        await tokenCall({}, 'application/json', '10.0.1.3'),
        await tokenCall({ grant_type: 'password', client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '10.0.1.4'),
        await tokenCall('{"client_id":', 'application/json', '10.0.1.5'),
      ]
      for (const res of answers) {
        assert.equal(res.statusCode, 401)
        assert.deepEqual(res.json(), INVALID_CLIENT)
      }
    })

    it('refuses a token call whose body passes 16 KB, even with the right credentials, with 401 invalid_client', async () => {
      // 100 KB of PHP brackets (4,000 parameters, under the 5,000 a form may hold), after the right credentials.
      const padding = Array.from({ length: 4_000 }, (_, i) => `p${i}[a][b][c]=${'x'.repeat(12)}`).join('&')
      const form = `client_id=${creds.client_id}&client_secret=${encodeURIComponent(creds.client_secret)}&${padding}`
      assert.ok(form.length > 100_000)
      const res = await tokenCall(form, 'application/x-www-form-urlencoded', '10.0.3.1')
      assert.equal(res.statusCode, 401, res.body)
      assert.deepEqual(res.json(), INVALID_CLIENT, 'the token call answers only a token or invalid_client (COMPAT.md)')
      const small = await tokenCall(form.slice(0, 15_000).replace(/&[^&]*$/, ''), 'application/x-www-form-urlencoded', '10.0.3.1')
      assert.equal(small.statusCode, 200, 'a body under 16 KB is read')
    })

    it('refuses a client_id or client_secret of more than 256 characters without a secret check', async () => {
      scryptGauge.resetPeak()
      for (const payload of [
        { client_id: creds.client_id, client_secret: 's'.repeat(257) },
        { client_id: `${creds.client_id}${'i'.repeat(257)}`, client_secret: creds.client_secret },
      ]) {
        const res = await tokenCall(payload, 'application/json', '10.0.4.1')
        assert.equal(res.statusCode, 401)
        assert.deepEqual(res.json(), INVALID_CLIENT)
      }
      assert.equal(scryptGauge.peak, 0, 'no scrypt check ran')
    })

    it('answers 401 without invalid_client for unknown, malformed, Python b\'…\' and missing bearer tokens', async () => {
      const good = (await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret })).json<{ access_token: string }>().access_token
      for (const header of ['Bearer nonsense', `Bearer b'${good}'`, 'Basic abc', '', `Bearer ${good} extra`]) {
        const res = await listWith(header)
        assert.equal(res.statusCode, 401, header)
        const body = res.json<Record<string, unknown>>()
        assert.equal(body.error, undefined)
        assert.equal(body.error_code, 401)
        assert.equal(typeof body.message, 'string')
      }
    })

    it('refuses a token after 3600 s, and a new token works at once', async () => {
      const old = (await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret })).json<{ access_token: string }>().access_token
      t.clock.advance(3600 * 1000)
      assert.equal((await listWith(`Bearer ${old}`)).statusCode, 401)
      const fresh = (await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret })).json<{ access_token: string }>().access_token
      assert.equal((await listWith(`Bearer ${fresh}`)).statusCode, 200)
    })

    it('throttles failed token calls per client_id and IP with Retry-After, without locking out other IPs', async () => {
      const attacker = '10.9.9.9'
      for (let i = 0; i < 3; i++) await tokenCall({ client_id: creds.client_id, client_secret: `guess${i}` }, 'application/json', attacker)
      const locked = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', attacker)
      assert.equal(locked.statusCode, 401)
      assert.deepEqual(locked.json(), INVALID_CLIENT)
      assert.ok(Number(locked.headers['retry-after']) > 0 && Number(locked.headers['retry-after']) <= 60)
      const elsewhere = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '10.8.8.8')
      assert.equal(elsewhere.statusCode, 200, 'the real client on another IP still gets its token')
      t.clock.advance(61_000)
      const later = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', attacker)
      assert.equal(later.statusCode, 200, 'the window has passed')
    })

    it('throttles one IP guessing many client ids', async () => {
      const ip = '10.7.7.7'
      for (let i = 0; i < 6; i++) await tokenCall({ client_id: `id${i}`, client_secret: 'x' }, 'application/json', ip)
      const res = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', ip)
      assert.equal(res.statusCode, 401)
      assert.ok(Number(res.headers['retry-after']) > 0)
    })

    it('does not count bad bearer tokens towards the token-call throttle', async () => {
      for (let i = 0; i < 20; i++) {
        await t.app.inject({ method: 'GET', url: '/addressbooks', headers: { authorization: "Bearer b'stale'" }, remoteAddress: '10.6.6.6' })
      }
      const res = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '10.6.6.6')
      assert.equal(res.statusCode, 200)
    })

    it('accepts an operator-made API key as a bearer token until it is revoked', async () => {
      const account = await accounts.createAccount(t.deps, { name: 'keys' })
      const key = await accounts.createApiKey(t.deps, account.id, 'php 3.x')
      assert.equal((await listWith(`Bearer ${key.api_key}`)).statusCode, 200)
      const stored = await t.deps.db.selectFrom('api_keys').select('key_hash').where('id', '=', key.id).executeTakeFirstOrThrow()
      assert.notEqual(stored.key_hash, key.api_key)
      await accounts.revokeApiKey(t.deps, account.id, key.id)
      // Known keys are remembered per process, like tokens: a revocation is seen at the next generation check.
      t.clock.advance(GENERATION_CHECK_MS)
      assert.equal((await listWith(`Bearer ${key.api_key}`)).statusCode, 401)
    })

    it('counts the failures of IPv6 clients in one /64 together', async () => {
      for (let i = 1; i <= 6; i++) await tokenCall({ client_id: `v6-${i}`, client_secret: 'x' }, 'application/json', `2001:db8:1:2::${i}`)
      const sameNetwork = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '2001:db8:1:2:ffff:ffff:ffff:ffff')
      assert.equal(sameNetwork.statusCode, 401)
      assert.ok(Number(sameNetwork.headers['retry-after']) > 0)
      const nextNetwork = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '2001:db8:1:3::1')
      assert.equal(nextNetwork.statusCode, 200)
    })

    it('runs at most MAX_SECRET_CHECKS scrypt checks at once and answers the overflow at once with 401 invalid_client and Retry-After', async () => {
      scryptGauge.resetPeak()
      const flood = await Promise.all(
        Array.from({ length: 200 }, (_, i) => tokenCall({ client_id: creds.client_id, client_secret: `flood${i}` }, 'application/json', `10.50.${i >> 8}.${i & 255}`)),
      )
      assert.ok(scryptGauge.peak >= 1 && scryptGauge.peak <= MAX_SECRET_CHECKS, `peak ${scryptGauge.peak}`)
      for (const res of flood) {
        assert.equal(res.statusCode, 401)
        assert.deepEqual(res.json(), INVALID_CLIENT)
      }
      const busy = flood.filter((res) => res.headers['retry-after'] !== undefined)
      assert.ok(busy.length > 0, 'the overflow is refused, not queued')
      for (const res of busy) assert.equal(res.headers['retry-after'], '1')
      const after = await tokenCall({ client_id: creds.client_id, client_secret: creds.client_secret }, 'application/json', '10.51.0.1')
      assert.equal(after.statusCode, 200, 'the right secret gets a token once the flood has passed')
    })
  })

  describe(`client address behind listed proxies on ${dialect}`, () => {
    let t: TestApp
    let creds: accounts.CreatedAccount
    before(async () => {
      t = await startTestApp(dialect, { loginMaxFailuresPerIp: 6, trustProxy: ['10.0.0.0/8'] })
      creds = await accounts.createAccount(t.deps, { name: 'proxied' })
    })
    after(() => t.close())

    const tokenCall = (secret: string, peer: string, forwardedFor: string, clientId = creds.client_id) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/access_token',
        payload: { client_id: clientId, client_secret: secret },
        headers: { 'x-forwarded-for': forwardedFor },
        remoteAddress: peer,
      })

    it('ignores X-Forwarded-For from a peer that is not a listed proxy', async () => {
      for (let i = 0; i < 6; i++) await tokenCall('x', '192.0.2.50', `203.0.113.${i}`, `someone${i}`)
      const res = await tokenCall(creds.client_secret, '192.0.2.50', '203.0.113.99')
      assert.equal(res.statusCode, 401, 'every failure counted against the peer itself')
      assert.ok(Number(res.headers['retry-after']) > 0)
    })

    it('takes the client address from X-Forwarded-For sent by a listed proxy', async () => {
      for (let i = 0; i < 6; i++) await tokenCall('x', '10.1.1.1', '203.0.113.10', `someone${i}`)
      assert.equal((await tokenCall(creds.client_secret, '10.1.1.1', '203.0.113.10')).statusCode, 401)
      assert.equal((await tokenCall(creds.client_secret, '10.1.1.1', '203.0.113.11')).statusCode, 200, 'another client behind the same proxy')
    })
  })

  describe(`client address one proxy hop away on ${dialect}`, () => {
    let t: TestApp
    let creds: accounts.CreatedAccount
    before(async () => {
      t = await startTestApp(dialect, { loginMaxFailuresPerIp: 6, trustProxy: 1 })
      creds = await accounts.createAccount(t.deps, { name: 'one hop' })
    })
    after(() => t.close())

    const tokenCall = (secret: string, forwardedFor: string, clientId = creds.client_id) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/access_token',
        payload: { client_id: clientId, client_secret: secret },
        headers: { 'x-forwarded-for': forwardedFor },
        remoteAddress: '10.0.0.1',
      })

    it('takes the address the proxy appended, not the ones the client wrote before it', async () => {
      for (let i = 0; i < 6; i++) await tokenCall('x', `198.51.100.${i}, 203.0.113.7`, `someone${i}`)
      const forged = await tokenCall(creds.client_secret, '198.51.100.99, 203.0.113.7')
      assert.equal(forged.statusCode, 401, 'a new forged first entry does not escape the count')
      assert.ok(Number(forged.headers['retry-after']) > 0)
      assert.equal((await tokenCall(creds.client_secret, '198.51.100.5, 203.0.113.8')).statusCode, 200)
    })
  })
}
