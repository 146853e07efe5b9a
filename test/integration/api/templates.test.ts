// Email templates (API.md 2.4, 4.3): create from Base64, read by real_id, string id and slug, edit in the
// creation language, list own (owner=me) and system templates with paging; the npm SDK's template calls.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'
import { XMLValidator } from 'fast-xml-parser'

const WIRE_DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/
const base64 = (text: string) => Buffer.from(text).toString('base64')
type Wire = Record<string, unknown> & { id: string; real_id: number; name: string; name_slug: string; body: string }

for (const dialect of DIALECTS) {
  describe(`templates on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const create = async (payload: Record<string, unknown>, who = account) => {
      const res = await t.call(who, { method: 'POST', url: '/template', payload })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ result: boolean; real_id: number }>()
    }
    const get = (ref: string | number, who = account) => t.call(who, { method: 'GET', url: `/template/${ref}` })

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('creates a template from Base64 HTML with the default name and language, and reads it by real_id and by id', async () => {
      const created = await create({ body: base64('<h1>Hello {{name}}</h1>') })
      assert.equal(created.result, true)
      assert.ok(Number.isInteger(created.real_id))
      const res = await get(created.real_id)
      const template = res.json<Wire>()
      assert.equal(typeof template.id, 'string')
      assert.equal(template.real_id, created.real_id)
      assert.equal(template.name, `Template ${new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' ')}`)
      assert.equal(template.lang, 'en')
      assert.match(String(template.created), WIRE_DATE)
      assert.equal(template.owner, 'me')
      assert.equal(template.is_structure, false)
      assert.equal(template.tags, null, 'tags: an object or null, never [] (COMPAT.md)')
      assert.equal(template.category_info, null)
      assert.equal(Buffer.from(template.body, 'base64').toString(), '<h1>Hello {{name}}</h1>')
      const byId = await get(template.id)
      assert.equal(byId.json<Wire>().real_id, created.real_id)
      const asDigits = await get(String(created.real_id))
      assert.equal(asDigits.json<Wire>().id, template.id, 'Go sends ids as strings of digits')
    })

    it('edits the HTML under a new string id, only in the creation language', async () => {
      const { real_id } = await create({ name: 'Editable', body: base64('<p>one</p>'), lang: 'ua' })
      const before = (await get(real_id)).json<Wire>()
      const edited = await t.call(account, { method: 'POST', url: `/template/edit/${before.id}`, payload: { body: base64('<p>two</p>'), lang: 'ua' } })
      assert.deepEqual(edited.json(), { result: true })
      const after = (await get(real_id)).json<Wire>()
      assert.notEqual(after.id, before.id, 'the string id changes on every edit')
      assert.equal(Buffer.from(after.body, 'base64').toString(), '<p>two</p>')
      assert.equal((await get(before.id)).statusCode, 404, 'the old string id is gone')
      const wrongLang = await t.call(account, { method: 'POST', url: `/template/edit/${real_id}`, payload: { body: base64('<p>three</p>'), lang: 'en' } })
      assert.equal(wrongLang.statusCode, 422)
      assert.match(wrongLang.json<{ message: string }>().message, /\(ua\)/)
      const missing = await t.call(account, { method: 'POST', url: '/template/edit/999999', payload: { body: base64('<p>x</p>') } })
      assert.deepEqual([missing.statusCode, missing.json()], [404, { error_code: 31, message: 'Template not found' }])
    })

    it('refuses a missing or non-Base64 body, an unknown language and a name in use, storing nothing', async () => {
      await create({ name: 'Taken', body: base64('<p>x</p>') })
      const before = await snapshotDatabase(t.deps)
      const cases: [Record<string, unknown>, { error_code: number; message: string } | RegExp][] = [
        [{ name: 'No body' }, { error_code: 422, message: 'Argument body missing' }],
        [{ body: 'not base64 at all!' }, { error_code: 422, message: 'Argument body is invalid string' }],
        [{ body: base64('<p>x</p>'), lang: 'fr' }, /^Argument lang is invalid/],
        [{ name: 'Taken', body: base64('<p>y</p>') }, { error_code: 573, message: 'Template with such name already exist' }],
      ]
      for (const [payload, expected] of cases) {
        const res = await t.call(account, { method: 'POST', url: '/template', payload })
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        if (expected instanceof RegExp) assert.match(res.json<{ message: string }>().message, expected)
        else assert.deepEqual(res.json(), expected)
      }
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('finds a template by its slug, names in any script transliterated', async () => {
      await create({ name: 'Весняний розпродаж', body: base64('<p>sale</p>'), lang: 'ua' })
      const res = await t.call(account, { method: 'GET', url: '/template/slug/vesnyaniy-rozprodazh' })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json<Wire>().name, 'Весняний розпродаж')
      const missing = await t.call(account, { method: 'GET', url: '/template/slug/nothing-here' })
      assert.deepEqual([missing.statusCode, missing.json()], [404, { error_code: 290, message: 'Template not found' }])
    })

    it('lists own templates with owner=me, honouring limit and offset in the query and in a JSON body', async () => {
      const owner = await t.account()
      for (const name of ['first', 'second', 'third']) await create({ name, body: base64(`<p>${name}</p>`) }, owner)
      const all = await t.call(owner, { method: 'GET', url: '/templates?owner=me' })
      assert.deepEqual(all.json<Wire[]>().map((x) => x.name), ['first', 'second', 'third'])
      const paged = await t.call(owner, { method: 'GET', url: '/templates/?owner=me&limit=1&offset=1' })
      assert.deepEqual(paged.json<Wire[]>().map((x) => x.name), ['second'])
      const body = await t.call(owner, { method: 'GET', url: '/templates', payload: { owner: 'me', limit: 2, offset: 1 } })
      assert.deepEqual(body.json<Wire[]>().map((x) => x.name), ['second', 'third'])
      const system = await t.call(owner, { method: 'GET', url: '/templates' })
      assert.ok(system.json<Wire[]>().every((x) => x.owner === 'system'), 'without owner=me: system templates only')
    })

    it('ships system templates with preview images, readable by every account and editable by none', async () => {
      const list = (await t.call(account, { method: 'GET', url: '/templates' })).json<Wire[]>()
      assert.deepEqual(list.map((x) => [x.name, x.name_slug, x.owner]), [
        ['Newsletter', 'newsletter', 'system'],
        ['Promotion', 'promotion', 'system'],
        ['Welcome', 'welcome', 'system'],
      ])
      for (const template of list) {
        assert.equal(template.preview, `${t.deps.config.publicUrl}/template-previews/${template.name_slug}.svg`)
        const image = await t.app.inject({ method: 'GET', url: new URL(String(template.preview)).pathname })
        assert.equal(image.statusCode, 200)
        assert.equal(image.headers['content-type'], 'image/svg+xml')
        assert.equal(XMLValidator.validate(image.body), true)
        assert.ok(image.body.includes('Alex'), 'the preview shows sample variables, not {{name}}')
        assert.match(Buffer.from(template.body, 'base64').toString(), /\{\{name\}\}/)
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/template-previews/nothing.svg' })).statusCode, 404)
      const bySlug = await t.call(account, { method: 'GET', url: '/template/slug/welcome' })
      assert.equal(bySlug.json<Wire>().owner, 'system')
      const byId = await t.call(account, { method: 'GET', url: '/template/system-promotion' })
      assert.equal(byId.json<Wire>().name, 'Promotion')
      const edit = await t.call(account, { method: 'POST', url: '/template/edit/system-promotion', payload: { body: base64('<p>mine now</p>') } })
      assert.deepEqual([edit.statusCode, edit.json()], [404, { error_code: 31, message: 'Template not found' }])
    })

    it("never shows or edits another account's template", async () => {
      const { real_id } = await create({ name: 'Private', body: base64('<p>mine</p>') })
      const intruder = await t.account()
      const id = (await get(real_id)).json<Wire>().id
      for (const ref of [real_id, id]) assert.equal((await get(ref, intruder)).statusCode, 404)
      const edit = await t.call(intruder, { method: 'POST', url: `/template/edit/${real_id}`, payload: { body: base64('<p>theirs</p>') } })
      assert.equal(edit.statusCode, 404)
      assert.equal(Buffer.from((await get(real_id)).json<Wire>().body, 'base64').toString(), '<p>mine</p>')
      assert.equal((await t.call(intruder, { method: 'GET', url: '/template/slug/private' })).statusCode, 404)
      assert.deepEqual((await t.call(intruder, { method: 'GET', url: '/templates?owner=me' })).json(), [])
    })
  })

  describe(`the npm SDK's template calls on ${dialect}`, () => {
    let h: SdkHarness
    before(async () => {
      h = await startSdkHarness(dialect)
      await h.init()
    })
    after(() => h?.close())

    it('reads a template with getEmailTemplate and the system list with listEmailTemplates', async () => {
      const created = await h.request('POST', '/template', { name: 'SDK template', body: base64('<b>hi</b>'), lang: 'en' })
      const { real_id } = JSON.parse(created.body) as { real_id: number }
      const template = await call<Wire>(h.sdk.getEmailTemplate, real_id)
      assert.equal(template.name, 'SDK template')
      assert.equal(template.real_id, real_id)
      const list = await call<Wire[]>(h.sdk.listEmailTemplates)
      assert.deepEqual(list.map((x) => x.name), ['Newsletter', 'Promotion', 'Welcome'])
    })
  })
}
