// Webhook URLs whose host no DNS name can be: longer than 253 characters, or with an empty (or over-long)
// label. URL takes any run of dots as a host; such a URL would only ever fail, with the whole host in the error
// text of every attempt, so it is refused when given (POST and PUT), with the SendPulse error body.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const BASE = '/v2/email-service/webhook'

const REFUSED_HOSTS = [
  ['1,980 dots', '.'.repeat(1980)],
  ['254 characters', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`],
  ['an empty label', 'hooks..example'],
  ['a leading dot', '.hooks.example'],
  ['two trailing dots', 'hooks.example..'],
  ['a label of 64 characters', `${'a'.repeat(64)}.example`],
] as const

for (const dialect of DIALECTS) {
  describe(`webhook URL hosts on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect)
    })
    after(async () => {
      await t.close()
    })

    it('refuses, on POST and PUT, a host that is no DNS name, and keeps nothing of it', async () => {
      const account = await t.account()
      const created = await t.call(account, { method: 'POST', url: BASE, payload: { url: 'https://hooks.example/a', actions: ['open'] } })
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json<{ data: { id: number }[] }>().data[0]!.id
      for (const [name, host] of REFUSED_HOSTS) {
        const url = `https://${host}/in`
        for (const [method, path, payload] of [['POST', BASE, { url, actions: ['open'] }], ['PUT', `${BASE}/${id}`, { url }]] as const) {
          const refused = await t.call(account, { method, url: path, payload })
          assert.equal(refused.statusCode, 422, `${method} ${name}: ${refused.body.slice(0, 200)}`)
          const body = refused.json<{ error_code: number; message: string }>()
          assert.equal(body.error_code, 422)
          assert.match(body.message, /^Argument url must have a host name /, name)
        }
      }
      const listed = (await t.call(account, { method: 'GET', url: BASE })).json<{ data: { url: string }[] }>().data
      assert.deepEqual(listed.map((w) => w.url), ['https://hooks.example/a'])
    })

    it('takes names of 253 characters, a fully qualified name (one trailing dot) and IP literals', async () => {
      const account = await t.account()
      const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`.slice(1)
      for (const url of [`https://${longest}/in`, 'https://hooks.example./in', 'http://203.0.113.9/in', 'http://[2001:db8::1]:8080/in']) {
        const answer = await t.call(account, { method: 'POST', url: BASE, payload: { url, actions: ['open'] } })
        assert.equal(answer.statusCode, 200, `${url}: ${answer.body}`)
      }
    })
  })
}
