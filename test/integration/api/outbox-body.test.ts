// GET /outbox/{id}/body (a Tidings extension): one outbox message's HTML as a page of its own, for the console's
// sandboxed frame. Its policy sandboxes it even when opened in a tab (no script in the console's origin), fetches only
// data: images unless `images=true`, allows inline styles; a service email shows its shown copy (never the secret), a
// campaign message its HTML as sent; the console's cookie alone is enough for this GET (an <iframe src> sends no
// header) but for no other route; another account's id is answered 404 as for none.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { activeSender } from '../../helpers/senders.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { consoleCall, openConsoleSession } from '../../helpers/console-session.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'

/** The directives of a Content-Security-Policy header, by name. */
function directives(policy: unknown): Map<string, string> {
  return new Map(
    String(policy)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values.join(' ')]),
  )
}

for (const dialect of DIALECTS) {
  describe(`an outbox message's body page on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let codeEmail: number
    let setup: CampaignSetup

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      await activeSender(t, account, 'news@example.com')
      codeEmail = Number((await t.deps.db.selectFrom('outbox').select('id').where('account_id', '=', account.id).executeTakeFirstOrThrow()).id)
      setup = await campaignSetup(t, 1)
    })
    after(() => t.close())

    it('serves a service email as a sandboxed page with no script, inline styles and data: images alone', async () => {
      const page = await t.call(account, { method: 'GET', url: `/outbox/${codeEmail}/body` })
      assert.equal(page.statusCode, 200, page.body)
      assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/)
      const policy = directives(page.headers['content-security-policy'])
      assert.equal(policy.get('sandbox'), '', 'sandboxed with no allow-* token')
      assert.equal(policy.get('default-src'), "'none'")
      assert.equal(policy.get('img-src'), 'data:')
      assert.equal(policy.get('style-src'), "'unsafe-inline'")
      assert.equal(policy.get('frame-ancestors'), "'self'")
      assert.equal(policy.has('script-src'), false, 'scripts fall under default-src none')
      assert.equal(page.headers['x-content-type-options'], 'nosniff')
      assert.equal(page.headers['cache-control'], 'no-store')
      const listed = (await t.call(account, { method: 'GET', url: '/outbox' })).json<{ id: number; html: string }[]>().find((e) => e.id === codeEmail)
      assert.ok(listed && page.body.endsWith(listed.html), 'the shown copy, as GET /outbox lists it')
      assert.match(page.body, /\[hidden\]/, 'never the activation code itself')

      const withImages = await t.call(account, { method: 'GET', url: `/outbox/${codeEmail}/body?images=true` })
      assert.equal(directives(withImages.headers['content-security-policy']).get('img-src'), 'data: http: https:')
      assert.equal(directives(withImages.headers['content-security-policy']).get('sandbox'), '')
    })

    it("serves a campaign message's HTML as sent, by the ids GET /outbox?campaign_id= lists", async () => {
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
      const [message] = (await t.call(setup.account, { method: 'GET', url: `/outbox?campaign_id=${id}` })).json<{ id: number; html: string }[]>()
      assert.ok(message)
      const page = await t.call(setup.account, { method: 'GET', url: `/outbox/${message.id}/body?campaign_id=${id}` })
      assert.equal(page.statusCode, 200, page.body)
      assert.ok(page.body.endsWith(message.html), 'the HTML as sent')
      assert.equal((await t.call(setup.account, { method: 'GET', url: `/outbox/${message.id}/body` })).statusCode, 404, 'not a service email id')
      assert.equal((await t.call(setup.account, { method: 'GET', url: `/outbox/${message.id + 1000}/body?campaign_id=${id}` })).statusCode, 404)
    })

    it('takes the console cookie without the CSRF header on this GET alone', async () => {
      const session = await openConsoleSession(t, { client_id: account.clientId, client_secret: account.clientSecret })
      const framed = await consoleCall(t, session, { method: 'GET', url: `/outbox/${codeEmail}/body`, csrfToken: null })
      assert.equal(framed.statusCode, 200, framed.body)
      assert.equal((await consoleCall(t, session, { method: 'GET', url: '/outbox', csrfToken: null })).statusCode, 403)
      assert.equal((await consoleCall(t, session, { method: 'GET', url: `/outbox/${codeEmail}/body`, csrfToken: 'forged' })).statusCode, 403)
      const noSession = await t.app.inject({ method: 'GET', url: `/outbox/${codeEmail}/body` })
      assert.equal(noSession.statusCode, 401)
    })

    it("answers another account 404 for this account's message, as for none", async () => {
      const other = await t.account('Other')
      for (const url of [`/outbox/${codeEmail}/body`, `/outbox/999999999/body`, `/outbox/${codeEmail}/body?images=true`]) {
        const answer = await t.call(other, { method: 'GET', url })
        assert.equal(answer.statusCode, 404, `${url}: ${answer.body}`)
        assert.deepEqual(Object.keys(answer.json()).sort(), ['error_code', 'message'])
      }
    })
  })
}
