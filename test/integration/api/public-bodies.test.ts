// What a caller without a token may send: the routes outside the bearer check (token call, confirmation and
// tracking links, unknown paths) read at most 16 KB of body, so a flood of 8 MB bracket-heavy forms costs them
// nothing to parse; the API routes, behind the bearer check, still take TIDINGS_BODY_LIMIT.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }
/** 100 KB of PHP brackets in 4,000 parameters (a form may hold 5,000): the parser's most costly input per byte. */
const BRACKET_FORM = Array.from({ length: 4_000 }, (_, i) => `p${i}[a][b][c]=${'x'.repeat(12)}`).join('&')
const TOO_LARGE = { error_code: 413, message: 'Request body is too large' }

for (const dialect of DIALECTS) {
  describe(`bodies of requests without a token on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect)
    })
    after(() => t.close())

    const unauthenticated = [
      { what: 'the RFC 8058 one-click unsubscribe', method: 'POST', url: '/t/some-token/unsubscribe' },
      { what: 'the confirmation button', method: 'POST', url: '/confirm/some-token' },
      { what: 'the open pixel (GET bodies are parsed for the npm SDK)', method: 'GET', url: '/t/some-token/open.gif' },
      { what: 'an unknown path', method: 'POST', url: '/no/such/route' },
    ] as const

    for (const route of unauthenticated) {
      it(`answers a 100 KB form to ${route.what} with 413 and the JSON error body`, async () => {
        const res = await t.app.inject({ method: route.method, url: route.url, headers: FORM_TYPE, payload: BRACKET_FORM })
        assert.equal(res.statusCode, 413, res.body.slice(0, 200))
        assert.match(String(res.headers['content-type']), /^application\/json/)
        assert.deepEqual(res.json(), TOO_LARGE)
      })
    }

    it('still reads the small form a one-click unsubscribe sends', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/t/some-token/unsubscribe', headers: FORM_TYPE, payload: 'List-Unsubscribe=One-Click' })
      assert.equal(res.statusCode, 404, 'read, and the token is unknown')
    })

    it('lets the API routes take large bodies once the token is checked, and refuses them at once without one', async () => {
      const account = await t.account()
      const big = { bookName: 'big body', padding: 'x'.repeat(100_000) }
      const created = await t.call(account, { method: 'POST', url: '/addressbooks', payload: big })
      assert.equal(created.statusCode, 200, created.body)
      const anonymous = await t.app.inject({ method: 'POST', url: '/addressbooks', payload: big })
      assert.equal(anonymous.statusCode, 401)
    })
  })
}
