// Tag routes (API.md 4.6): changes answer the queue envelope with a real queue_id and are applied only when
// the job runner runs; pins land in tag_links; the Pro-plan rule; isolation between accounts.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import * as tags from '../../../src/services/audience/tags.js'
import * as tagsRepo from '../../../src/storage/repos/tags.js'
import { JobRunner } from '../../../src/dispatcher/jobs.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }

interface Envelope {
  success: boolean
  failure: boolean
  code: string
  description: string
  http_code: number
  queue_id: string
  user_id?: number
  version?: string
}
interface TagList {
  tags: { id: number; name: string; color: string }[]
  user_id: number
  version: string
}

for (const dialect of DIALECTS) {
  describe(`tags on ${dialect}`, () => {
    let t: TestApp
    let runner: JobRunner
    let account: TestAccount

    const call = (options: InjectOptions, as = account) => t.call(as, options)
    const list = async (as = account) => (await call({ method: 'GET', url: '/tags' }, as)).json<TagList>().tags
    const queuedOk = async (options: InjectOptions, as = account) => {
      const res = await call(options, as)
      assert.equal(res.statusCode, 200, res.body)
      return res.json<Envelope>()
    }
    /** Creates a tag and runs its job; returns the new tag's id. */
    const createTag = async (name: string, color = '#f0f4f6', as = account) => {
      await queuedOk({ method: 'POST', url: '/tags', payload: { name, color } }, as)
      assert.equal(await runner.runDue(), 1)
      const created = (await list(as)).find((tag) => tag.name === name)
      assert.ok(created, `tag ${name} was created`)
      return created.id
    }
    const jobCount = async () => Number((await t.deps.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const linksOf = async (kind: string, value: string) =>
      (await t.deps.db.selectFrom('tag_links').select('tag_id').where('kind', '=', kind).where('value', '=', value).orderBy('tag_id').execute()).map((r) =>
        Number(r.tag_id),
      )

    before(async () => {
      t = await startTestApp(dialect)
      runner = new JobRunner(t.deps, tags.jobHandlers)
      account = await t.account()
    })
    after(() => t.close())

    it('queues a creation: the envelope carries the queue_id of a jobs row, and the tag appears only after the job ran', async () => {
      const envelope = await queuedOk({ method: 'POST', url: '/tags', payload: { name: 'VIP', color: '#AbC123' } })
      assert.deepEqual({ ...envelope, queue_id: undefined }, {
        success: true,
        failure: false,
        code: 'request_sended_to_queue',
        description: 'Request sended to queue',
        http_code: 200,
        queue_id: undefined,
        user_id: account.id,
        version: PACKAGE_VERSION,
      })
      assert.match(envelope.queue_id, UUID)
      const job = await t.deps.db.selectFrom('jobs').selectAll().where('queue_id', '=', envelope.queue_id).executeTakeFirstOrThrow()
      assert.equal(job.kind, 'tags.create')
      assert.equal(job.status, 'queued')
      assert.equal(Number(job.account_id), account.id)

      assert.deepEqual(await list(), [])
      assert.equal(await runner.runDue(), 1)
      const listed = (await call({ method: 'GET', url: '/tags' })).json<TagList>()
      assert.deepEqual(listed, { tags: [{ color: '#AbC123', id: listed.tags[0]?.id, name: 'VIP' }], user_id: account.id, version: PACKAGE_VERSION })
      assert.ok(Number.isInteger(listed.tags[0]?.id))
      const done = await t.deps.db.selectFrom('jobs').select(['status', 'attempts']).where('queue_id', '=', envelope.queue_id).executeTakeFirstOrThrow()
      assert.deepEqual({ status: done.status, attempts: Number(done.attempts) }, { status: 'done', attempts: 1 })
      assert.equal(await runner.runDue(), 0)
    })

    it('refuses a missing name or color, or a color that is not #rgb / #rrggbb, and queues nothing', async () => {
      const before = await jobCount()
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'x' }, 'Argument color missing'],
        [{ color: '#fff' }, 'Argument name missing'],
        [{ name: 'x', color: 'red' }, 'Argument color is invalid'],
        [{ name: 'x', color: '#12' }, 'Argument color is invalid'],
        [{ name: 'x', color: '#1234567' }, 'Argument color is invalid'],
        [{ name: 'x', color: 'fff000' }, 'Argument color is invalid'],
        [{ name: 'x', color: 5 }, 'Argument color must be string'],
      ]
      for (const [payload, message] of cases) {
        const res = await call({ method: 'POST', url: '/tags', payload })
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json(), { error_code: 422, message })
      }
      assert.equal(await jobCount(), before)
      // The short form is a colour too, and a form-encoded body works like JSON.
      await queuedOk({ method: 'POST', url: '/tags', headers: FORM_TYPE, payload: 'name=Short&color=%23fa0' })
      assert.equal(await runner.runDue(), 1)
      assert.equal((await list()).find((tag) => tag.name === 'Short')?.color, '#fa0')
    })

    it('queues an update and a deletion of an existing tag, answering 404 for an unknown one', async () => {
      const id = await createTag('Old name')
      const updated = await queuedOk({ method: 'PUT', url: `/tags/${id}`, payload: { name: 'New name', color: '#000000' } })
      assert.equal(updated.user_id, account.id)
      assert.equal(updated.version, PACKAGE_VERSION)
      assert.equal((await list()).find((tag) => tag.id === id)?.name, 'Old name')
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual((await list()).find((tag) => tag.id === id), { color: '#000000', id, name: 'New name' })

      const deleted = await queuedOk({ method: 'DELETE', url: `/tags/${id}` })
      assert.match(deleted.queue_id, UUID)
      assert.notEqual(deleted.queue_id, updated.queue_id)
      assert.ok((await list()).some((tag) => tag.id === id))
      assert.equal(await runner.runDue(), 1)
      assert.ok(!(await list()).some((tag) => tag.id === id))

      const before = await jobCount()
      for (const request of [
        { method: 'PUT', url: `/tags/${id}`, payload: { name: 'Again', color: '#fff' } },
        { method: 'DELETE', url: `/tags/${id}` },
        { method: 'DELETE', url: '/tags/987654' },
      ] as InjectOptions[]) {
        const res = await call(request)
        assert.equal(res.statusCode, 404, res.body)
        assert.deepEqual(res.json(), { error_code: 404, message: 'Tag not found' })
      }
      const noColor = await call({ method: 'PUT', url: `/tags/${id}`, payload: { name: 'x' } })
      assert.deepEqual(noColor.json(), { error_code: 422, message: 'Argument color missing' })
      assert.equal(await jobCount(), before)
    })

    it('pins and unpins tags on an email address after the job runs, idempotently, with the short envelope', async () => {
      const red = await createTag('red')
      const blue = await createTag('blue')
      const pinned = await queuedOk({ method: 'POST', url: '/tags/pin/email', payload: { email: ' Someone@Example.COM ', tags: [red, blue] } })
      assert.deepEqual(Object.keys(pinned).sort(), ['code', 'description', 'failure', 'http_code', 'queue_id', 'success'])
      assert.equal(pinned.code, 'request_sended_to_queue')
      // Not a contact of any list: pinning does not need one.
      assert.deepEqual(await linksOf('email', 'Someone@example.com'), [])
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual(await linksOf('email', 'Someone@example.com'), [red, blue])

      // Again, with the list as a JSON string and as form index keys: nothing doubles.
      await queuedOk({ method: 'POST', url: '/tags/pin/email', payload: { email: 'Someone@example.com', tags: JSON.stringify([String(red)]) } })
      await queuedOk({ method: 'POST', url: '/tags/pin/email', headers: FORM_TYPE, payload: `email=Someone%40example.com&tags%5B0%5D=${blue}&tags%5B1%5D=${red}` })
      assert.equal(await runner.runDue(), 2)
      assert.deepEqual(await linksOf('email', 'Someone@example.com'), [red, blue])
      const byEmail = await tagsRepo.tagsOfEmails(t.deps.db, account.id, ['Someone@example.com', 'nobody@example.com'])
      assert.deepEqual([...byEmail.entries()], [['Someone@example.com', [{ id: red, name: 'red', color: '#f0f4f6' }, { id: blue, name: 'blue', color: '#f0f4f6' }]]])

      const unpinned = await queuedOk({ method: 'POST', url: '/tags/unpin/email', payload: { email: 'Someone@EXAMPLE.com', tags: [red] } })
      assert.equal(unpinned.user_id, undefined)
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual(await linksOf('email', 'Someone@example.com'), [blue])

      // Deleting a tag takes its links with it.
      await queuedOk({ method: 'DELETE', url: `/tags/${blue}` })
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual(await linksOf('email', 'Someone@example.com'), [])
    })

    it('pins and unpins tags on a phone number given as a string or a number, stored as international digits', async () => {
      const green = await createTag('green')
      await queuedOk({ method: 'POST', url: '/tags/pin/phone', payload: { phone: '+380 63 123 4567', tags: [green] } })
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual(await linksOf('phone', '380631234567'), [green])
      await queuedOk({ method: 'POST', url: '/tags/unpin/phone', payload: { phone: 380631234567, tags: [green] } })
      assert.equal(await runner.runDue(), 1)
      assert.deepEqual(await linksOf('phone', '380631234567'), [])
    })

    it('refuses an invalid address, phone or tag list, and unknown tag ids (naming them), before queueing', async () => {
      const tag = await createTag('checked')
      const before = await jobCount()
      const cases: [InjectOptions, number, { error_code: number; message: string }][] = [
        [{ method: 'POST', url: '/tags/pin/email', payload: { email: 'not an address', tags: [tag] } }, 422, { error_code: 422, message: 'Argument email is invalid' }],
        [{ method: 'POST', url: '/tags/pin/email', payload: { tags: [tag] } }, 422, { error_code: 422, message: 'Argument email missing' }],
        [{ method: 'POST', url: '/tags/unpin/email', payload: { email: 'a@example.com' } }, 422, { error_code: 422, message: 'Argument tags missing' }],
        [{ method: 'POST', url: '/tags/pin/email', payload: { email: 'a@example.com', tags: [] } }, 422, { error_code: 422, message: 'Argument tags must have at least 1 items' }],
        [{ method: 'POST', url: '/tags/pin/email', payload: { email: 'a@example.com', tags: 'red' } }, 422, { error_code: 422, message: 'Argument tags must be array' }],
        [{ method: 'POST', url: '/tags/pin/phone', payload: { phone: '12', tags: [tag] } }, 422, { error_code: 422, message: 'Argument phone is invalid' }],
        [{ method: 'POST', url: '/tags/unpin/phone', payload: { phone: 'call me', tags: [tag] } }, 422, { error_code: 422, message: 'Argument phone is invalid' }],
        [{ method: 'POST', url: '/tags/pin/email', payload: { email: 'a@example.com', tags: [tag, 987654, 987655] } }, 404, { error_code: 404, message: 'Tag not found: 987654, 987655' }],
        [{ method: 'POST', url: '/tags/unpin/phone', payload: { phone: '380631234567', tags: [987654] } }, 404, { error_code: 404, message: 'Tag not found: 987654' }],
      ]
      for (const [request, status, body] of cases) {
        const res = await call(request)
        assert.equal(res.statusCode, status, `${request.url} ${JSON.stringify(request.payload)}: ${res.body}`)
        assert.deepEqual(res.json(), body)
      }
      assert.equal(await jobCount(), before)
    })

    it('answers the tariff exception on every tag route to accounts below the Pro plan, before reading the input', async () => {
      const own = await createTag('for the plan test')
      for (const plan of ['free', 'standard']) {
        const created = await accounts.createAccount(t.deps, { name: `${plan} account`, plan })
        const token = await t.app.inject({
          method: 'POST',
          url: '/oauth/access_token',
          payload: { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret },
        })
        const lowPlan = { id: created.id, clientId: created.client_id, clientSecret: created.client_secret, token: token.json<{ access_token: string }>().access_token, tokenIssuedAt: t.clock.now }
        const before = await jobCount()
        for (const request of [
          { method: 'GET', url: '/tags' },
          { method: 'POST', url: '/tags', payload: { name: 'x', color: '#fff' } },
          { method: 'POST', url: '/tags', payload: {} },
          { method: 'PUT', url: `/tags/${own}`, payload: { name: 'x', color: '#fff' } },
          { method: 'DELETE', url: `/tags/${own}` },
          { method: 'POST', url: '/tags/pin/email', payload: { email: 'a@example.com', tags: [own] } },
          { method: 'POST', url: '/tags/unpin/email', payload: { email: 'a@example.com', tags: [own] } },
          { method: 'POST', url: '/tags/pin/phone', payload: { phone: '380631234567', tags: [own] } },
          { method: 'POST', url: '/tags/unpin/phone', payload: { phone: 'bad', tags: 'bad' } },
        ] as InjectOptions[]) {
          const res = await call(request, lowPlan)
          assert.equal(res.statusCode, 403, `${plan} ${request.method} ${request.url}: ${res.body}`)
          assert.deepEqual(res.json(), { error_code: 3030303030, message: 'Access denied! Please change your tariff plan' })
        }
        assert.equal(await jobCount(), before)
      }
    })

    it("keeps accounts apart: B neither sees nor changes nor pins A's tags", async () => {
      const b = await t.account('account B')
      const aTag = await createTag("A's tag", '#111111')
      const aTags = await list()
      assert.deepEqual(await list(b), [])
      const before = await jobCount()
      for (const request of [
        { method: 'PUT', url: `/tags/${aTag}`, payload: { name: 'Taken over by B', color: '#222222' } },
        { method: 'DELETE', url: `/tags/${aTag}` },
      ] as InjectOptions[]) {
        const res = await call(request, b)
        assert.equal(res.statusCode, 404, res.body)
        assert.deepEqual(res.json(), { error_code: 404, message: 'Tag not found' })
      }
      for (const url of ['/tags/pin/email', '/tags/unpin/email']) {
        const res = await call({ method: 'POST', url, payload: { email: 'b@example.com', tags: [aTag] } }, b)
        assert.deepEqual(res.json(), { error_code: 404, message: `Tag not found: ${aTag}` })
      }
      const phone = await call({ method: 'POST', url: '/tags/pin/phone', payload: { phone: '380631234567', tags: [aTag] } }, b)
      assert.equal(phone.statusCode, 404)
      assert.equal(await jobCount(), before)
      // The repo functions the contact import uses skip another account's tag ids too.
      await tagsRepo.pinTagsToEmails(t.deps.db, { accountId: b.id, tagIds: [aTag], emails: ['b@example.com'], now: t.clock.now })
      assert.deepEqual(await linksOf('email', 'b@example.com'), [])
      await assert.rejects(tags.assertTagsExist(t.deps, b.id, [aTag]), { code: 'invalid', message: 'Argument tags is invalid' })
      await tags.assertTagsExist(t.deps, account.id, [aTag])

      // B's own tag with the same name is B's alone; A's list is unchanged.
      const bTag = await createTag("A's tag", '#333333', b)
      assert.notEqual(bTag, aTag)
      assert.deepEqual(await list(b), [{ color: '#333333', id: bTag, name: "A's tag" }])
      assert.deepEqual(await list(), aTags)
    })
  })
}
