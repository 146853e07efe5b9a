// GET /outbox never shows an account a secret that proves control of an address: the activation code of a
// sender (else any account could activate ceo@bigbank.com) and the link of a double opt-in confirmation (else
// consent could be faked). Those emails are listed with the secret replaced by [hidden]; the operator still
// reads them in full with `tidings outbox`.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { activeSender } from '../../helpers/senders.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

interface Listed {
  kind: string
  to: string
  subject: string
  html: string
  text: string
  status: string
}

for (const dialect of DIALECTS) {
  describe(`secrets in the outbox on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let bookId: number
    const stored = (kind: string, to: string) =>
      t.deps.db.selectFrom('outbox').selectAll().where('account_id', '=', account.id).where('kind', '=', kind).where('to_email', '=', to).orderBy('id', 'desc').executeTakeFirstOrThrow()
    const listed = async () => {
      const res = await t.call(account, { method: 'GET', url: '/outbox?limit=100' })
      assert.equal(res.statusCode, 200, res.body)
      return { body: res.body, emails: res.json<Listed[]>() }
    }

    before(async () => {
      t = await startTestApp(dialect, { publicUrl: 'https://news.example.org' })
      account = await t.account()
      bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Readers' } })).json<{ id: number }>().id
      await activeSender(t, account, 'owner@example.org', 'Owner')
    })
    after(() => t.close())

    it("does not show the activation code of a sender the account does not own, so it cannot activate it", async () => {
      await t.call(account, { method: 'POST', url: '/senders', payload: { email: 'ceo@bigbank.com', name: 'CEO' } })
      assert.equal((await t.call(account, { method: 'GET', url: '/senders/ceo@bigbank.com/code' })).statusCode, 200)
      const code = /\b(\d{8})\b/.exec((await stored('sender_code', 'ceo@bigbank.com')).text)?.[1]
      assert.ok(code, 'the email that goes out holds the code')

      const { body, emails } = await listed()
      assert.ok(!body.includes(code), `the code is nowhere in the response: ${body}`)
      const shown = emails.filter((e) => e.kind === 'sender_code' && e.to === 'ceo@bigbank.com')
      assert.equal(shown.length, 1, 'the email is listed, so its delivery can be followed')
      assert.equal(shown[0]!.subject, 'Sender activation code: [hidden]')
      assert.match(shown[0]!.text, /\[hidden\]/)
      assert.match(shown[0]!.html, /\[hidden\]/)
      assert.equal(shown[0]!.status, 'queued')
      for (const guess of (body.match(/\d{8}/g) ?? [])) {
        const tried = await t.call(account, { method: 'POST', url: '/senders/ceo@bigbank.com/code', payload: { code: guess } })
        assert.notEqual(tried.statusCode, 200, `activated with ${guess} read from the outbox`)
      }
    })

    it('does not show the confirmation link, even when the template spells it out a character at a time', async () => {
      const template = '<html><body><p>Hi {{name}}!</p><a href="{{confirmation_link}}">Yes</a><p>' +
        Array.from({ length: 160 }, (_, i) => `{{lookup confirmation_link ${i}}}`).join(' ') + '</p></body></html>'
      const created = await t.call(account, { method: 'POST', url: '/template', payload: { name: 'Spell', body: Buffer.from(template).toString('base64') } })
      const templateId = created.json<{ real_id: number }>().real_id
      for (const payload of [
        { emails: ['plain@example.com'] },
        { template_id: templateId, emails: [{ email: 'spelled@example.com', variables: { name: 'Reader' } }] },
      ]) {
        const res = await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails`, payload: { confirmation: 'force', sender_email: 'owner@example.org', message_lang: 'en', ...payload } })
        assert.equal(res.statusCode, 200, res.body)
      }
      const { body, emails } = await listed()
      for (const to of ['plain@example.com', 'spelled@example.com']) {
        const real = await stored('confirmation', to)
        const token = /\/confirm\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(real.text)?.[1]
        assert.ok(token, `a link in the email that goes out: ${real.text}`)
        const mac = token.split('.')[1]!
        assert.ok(!body.includes(mac) && !body.includes(token), 'neither the token nor its signature is in the response')
        const shown = emails.find((e) => e.kind === 'confirmation' && e.to === to)
        assert.ok(shown, `the confirmation to ${to} is listed`)
        assert.match(shown.html + shown.text, /\[hidden\]/)
      }
      const spelled = emails.find((e) => e.to === 'spelled@example.com')!
      assert.match(spelled.html, /<p>Hi Reader!<\/p><a href="\[hidden\]">Yes<\/a>/, 'the rest of the email is shown as sent')
      const sent = await stored('confirmation', 'spelled@example.com')
      const mac = /\/confirm\/[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)/.exec(sent.text)![1]!
      const spelledOut = /<a href="[^"]+">Yes<\/a><p>([^<]*)<\/p>/.exec(sent.html)?.[1]?.replace(/\s+/g, '')
      assert.match(spelledOut ?? '', /^https:\/\/link\.invalid\/[0-9a-f]{32}$/, `the template only ever held a stand-in for the link: ${sent.html}`)
      assert.equal(sent.html.split(mac).length, 2, 'the signature is in the email that goes out once: in the anchor')
      assert.ok(!(spelled.html + spelled.text).replace(/\s+/g, '').includes(mac), 'the spelled-out signature is not shown')
    })

    it('hides the whole content of secret-bearing emails queued before secrets were kept apart', async () => {
      await t.deps.db
        .insertInto('outbox')
        .values({ account_id: account.id, kind: 'sender_code', from_email: 'no-reply@example.org', from_name: '', to_email: 'old@bigbank.com', subject: 'Sender activation code: 55554444', html: '<p>55554444</p>', text: '55554444', status: 'captured', created_at: t.clock.now, updated_at: t.clock.now })
        .execute()
      const { body, emails } = await listed()
      assert.ok(!body.includes('55554444'), body)
      assert.deepEqual(emails.filter((e) => e.to === 'old@bigbank.com').map((e) => [e.subject, e.html, e.text, e.status]), [['[hidden]', '[hidden]', '[hidden]', 'captured']])
    })

    it('shows the operator every email in full with `tidings outbox`', async () => {
      const code = /\b(\d{8})\b/.exec((await stored('sender_code', 'ceo@bigbank.com')).text)![1]!
      const token = /\/confirm\/([A-Za-z0-9_.-]+)/.exec((await stored('confirmation', 'plain@example.com')).text)![1]!
      const { stdout } = await run(process.execPath, [...CLI, 'outbox', '--account', String(account.id)], { env: { ...process.env, DATABASE_URL: t.database.url } })
      const emails = JSON.parse(stdout) as Listed[]
      const sent = emails.find((e) => e.to === 'ceo@bigbank.com')
      assert.equal(sent?.subject, `Sender activation code: ${code}`)
      assert.ok(sent.text.includes(code))
      assert.ok(emails.find((e) => e.to === 'plain@example.com')?.text.includes(token), 'the confirmation link in full')
    })
  })
}
