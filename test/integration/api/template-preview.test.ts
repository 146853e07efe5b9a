// The console's template previews as pages of their own, so that a template's inline styles show in the console's
// sandboxed frames: POST /console/template-preview echoes the editor's unsaved HTML (a form with the session's
// csrf_token: never for a request without the session cookie, nor with a missing or wrong token), and
// GET /template/{id}/body shows a saved one (the cookie alone, as an <iframe src> sends; another account's id: 404).
// Both answer under the outbox body's policy: sandbox, no script, data: images alone, framed by the console alone.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { consoleCall, openConsoleSession, type ConsoleSession } from '../../helpers/console-session.js'

const BODY_LIMIT = 64 * 1024
const POLICY = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
const HTML = '<p style="color: rgb(255, 0, 0)">Hello &amp; <b>welcome</b></p>'

function assertPageHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers['content-security-policy'], POLICY)
  assert.equal(headers['x-content-type-options'], 'nosniff')
  assert.equal(headers['x-frame-options'], 'SAMEORIGIN')
  assert.equal(headers['referrer-policy'], 'no-referrer')
  assert.equal(headers['cross-origin-resource-policy'], 'same-origin')
  assert.equal(headers['cache-control'], 'no-store')
}

for (const dialect of DIALECTS) {
  describe(`the console's template preview pages on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let session: ConsoleSession
    const post = (form: Record<string, string>, cookie?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/template-preview',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }) },
        payload: new URLSearchParams(form).toString(),
      })

    before(async () => {
      t = await startTestApp(dialect, { bodyLimitBytes: BODY_LIMIT })
      account = await t.account()
      session = await openConsoleSession(t, { client_id: account.clientId, client_secret: account.clientSecret })
    })
    after(() => t.close())

    it('echoes the posted HTML as a sandboxed page, with the session cookie and its csrf_token from the form', async () => {
      const page = await post({ html: HTML, csrf_token: session.csrfToken }, session.cookie)
      assert.equal(page.statusCode, 200, page.body)
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
      assertPageHeaders(page.headers)
      assert.equal(page.body, `<!doctype html><meta charset="utf-8">${HTML}`)
    })

    it('refuses a post without the session cookie (401) or with a missing or wrong csrf_token (403)', async () => {
      const anonymous = await post({ html: HTML, csrf_token: session.csrfToken })
      assert.equal(anonymous.statusCode, 401)
      assert.deepEqual(anonymous.json(), { error_code: 401, message: 'Invalid, expired or missing access token' })
      // Refused before its body is read: no session, no reading of up to the body limit (not 413).
      assert.equal((await post({ html: 'x'.repeat(BODY_LIMIT + 1), csrf_token: session.csrfToken })).statusCode, 401)
      const unknownCookie = await post({ html: HTML, csrf_token: session.csrfToken }, 'tidings_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')
      assert.equal(unknownCookie.statusCode, 401)
      for (const csrfToken of [undefined, '', 'x'.repeat(43), session.csrfToken.slice(0, -1)]) {
        const forged = await post({ html: HTML, ...(csrfToken === undefined ? {} : { csrf_token: csrfToken }) }, session.cookie)
        assert.equal(forged.statusCode, 403, csrfToken)
        assert.deepEqual(forged.json(), { error_code: 403, message: 'A console session needs its CSRF token in the X-CSRF-Token header' })
      }
      // The session's token in the header, as API calls send it, does not stand in for the form's field.
      const inHeader = await t.app.inject({
        method: 'POST',
        url: '/console/template-preview',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie, 'x-csrf-token': session.csrfToken },
        payload: new URLSearchParams({ html: HTML }).toString(),
      })
      assert.equal(inHeader.statusCode, 403)
      const noHtml = await post({ csrf_token: session.csrfToken }, session.cookie)
      assert.equal(noHtml.statusCode, 422, noHtml.body)
      assert.deepEqual(Object.keys(noHtml.json()).sort(), ['error_code', 'message'])
      // Nor does a bearer token: this route is the console's alone.
      const bearer = await t.app.inject({
        method: 'POST',
        url: '/console/template-preview',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${account.token}` },
        payload: new URLSearchParams({ html: HTML, csrf_token: session.csrfToken }).toString(),
      })
      assert.equal(bearer.statusCode, 401)
    })

    it('reads HTML up to the body limit, as the template API does, and refuses more with a SendPulse error body', async () => {
      // Far above the 16 KB that routes outside the bearer check read (conventions/body-parsers.ts).
      const large = await post({ html: 'x'.repeat(BODY_LIMIT - 1024), csrf_token: session.csrfToken }, session.cookie)
      assert.equal(large.statusCode, 200, large.body)
      const big = await post({ html: 'x'.repeat(BODY_LIMIT + 1), csrf_token: session.csrfToken }, session.cookie)
      assert.equal(big.statusCode, 413, big.body)
      const body = big.json<{ error_code: number; message: string }>()
      assert.deepEqual(Object.keys(body).sort(), ['error_code', 'message'])
      assert.equal(body.error_code, 413)
    })

    it('serves a saved template as a sandboxed page by the cookie alone; another account gets 404', async () => {
      const made = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Styled', body: Buffer.from(HTML).toString('base64') } })
      assert.equal(made.statusCode, 200, made.body)
      const id = made.json<{ real_id: number }>().real_id
      const page = await consoleCall(t, session, { method: 'GET', url: `/template/${id}/body`, csrfToken: null })
      assert.equal(page.statusCode, 200, page.body)
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
      assertPageHeaders(page.headers)
      assert.equal(page.body, `<!doctype html><meta charset="utf-8">${HTML}`)
      const other = await t.account()
      const stranger = await t.call(other, { method: 'GET', url: `/template/${id}/body` })
      assert.equal(stranger.statusCode, 404)
      assert.deepEqual(stranger.json(), { error_code: 290, message: "Template not found" })
      assert.equal((await t.app.inject({ method: 'GET', url: `/template/${id}/body` })).statusCode, 401)
    })
  })
}
