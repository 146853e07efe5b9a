// Viber sender names and system-message templates: the operator registers and moderates them with
// `tidings viber …` (run as a real process against the test server's database); GET /viber/senders answers the
// account's own as a bare array and /viber/senders/{id} as a bare object (COMPAT.md "SMS and Viber" 2, 5), and
// the checks a campaign makes (a verified sender of the account, a text equal to an approved template) say why
// they refuse.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { deleteAccount } from '../../../src/services/accounts/account-lifecycle.js'
import { moderateViberSender, registerViberSender, requireActiveViberSender } from '../../../src/services/viber/senders.js'
import { approveViberTemplate, listViberTemplates, registerViberTemplate, requireApprovedTemplate } from '../../../src/services/viber/templates.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

/** The published record's keys in the order they are sent, each with the JSON type the Go SDK decodes. */
const SENDER_TYPES = {
  id: 'number', status: 'string', name: 'string', service_type: 'string', web_site: 'string', description: 'string',
  country: 'string', countries: 'array', traffic_type: 'string', admin_comment: 'string|null', owner: 'string',
}

/** Asserts the record's keys (in order) and the JSON type of each value. */
function assertSenderTypes(record: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(record), Object.keys(SENDER_TYPES))
  const types = Object.fromEntries(Object.entries(record).map(([key, value]) => [key, value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value]))
  assert.ok(types.admin_comment === 'string' || types.admin_comment === 'null', types.admin_comment)
  assert.deepEqual({ ...types, admin_comment: 'string|null' }, SENDER_TYPES)
  assert.ok(Number.isInteger(record.id))
  assert.ok((record.countries as unknown[]).every((c) => typeof c === 'string'))
}

for (const dialect of DIALECTS) {
  describe(`Viber sender names and templates on ${dialect}`, () => {
    let t: TestApp
    let a: TestAccount
    let b: TestAccount
    const tidings = async (...args: string[]) => JSON.parse((await run(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: t.database.url } })).stdout) as unknown
    const failing = (...args: string[]) => run(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: t.database.url } }).then(() => undefined, (err: Error & { code?: number; stderr?: string }) => err)
    const get = async (who: TestAccount, url: string) => {
      const res = await t.call(who, { method: 'GET', url })
      return { status: res.statusCode, body: res.json<unknown>(), raw: res.body }
    }

    before(async () => {
      t = await startTestApp(dialect)
      a = await t.account('A')
      b = await t.account('B')
    })
    after(() => t.close())

    it('answers [] before any sender name is registered, and 404 for an unknown id', async () => {
      assert.deepEqual(await get(a, '/viber/senders'), { status: 200, body: [], raw: '[]' })
      const unknown = await get(a, '/viber/senders/999999')
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { error_code: 404, message: 'Sender not found' })
      assert.equal((await get(a, '/viber/senders/abc')).status, 422)
    })

    // Each CLI run is a process start (one to two seconds): they all go in a few parallel rounds.
    it('registers, verifies and blocks sender names and registers and approves templates from the CLI; the API shows each account only its own', async () => {
      const bees = await registerViberSender(t.deps, b.id, { name: 'Bees' })
      const verifiable = await registerViberSender(t.deps, a.id, { name: 'Verify Me', country: 'ua', serviceType: 'shop', webSite: 'https://shop.example', description: 'Orders', trafficType: 'transactional' })
      const blockable = await registerViberSender(t.deps, a.id, { name: 'Block Me' })
      const template = await registerViberTemplate(t.deps, a.id, 'Your code is {{code}}')
      const [added, verified, blocked, templateAdded, approved, unknownSender, unknownTemplate] = await Promise.all([
        tidings('viber', 'senders', 'add', '--account', String(a.id), 'MyShop', '--service-type', 'retail', '--web-site', 'https://my.example', '--description', 'Parcels', '--country', 'PL', '--traffic-type', 'promo'),
        tidings('viber', 'senders', 'verify', String(verifiable)),
        tidings('viber', 'senders', 'block', String(blockable), '--comment', 'Not your brand'),
        tidings('viber', 'templates', 'add', '--account', String(b.id), 'Hello from B'),
        tidings('viber', 'templates', 'approve', String(template)),
        failing('viber', 'senders', 'verify', '999999'),
        failing('viber', 'templates', 'approve', '999999'),
      ])
      // Lists read what the first round wrote, so they come after it.
      const [listedB, every] = (await Promise.all([tidings('viber', 'senders', 'list', '--account', String(b.id)), tidings('viber', 'templates', 'list')])) as Record<string, unknown>[][]
      // Refusals: a message on stderr and a non-zero exit.
      for (const [err, message] of [[unknownSender, /Viber sender 999999 not found/], [unknownTemplate, /Viber template 999999 not found/]] as const) {
        assert.equal(err?.code, 1)
        assert.match(String(err?.stderr), message)
      }
      const shop = (added as { id: number }).id
      assert.deepEqual(added, { id: shop })
      assert.equal((verified as { status: string }).status, 'verified')
      assert.deepEqual([(blocked as { status: string }).status, (blocked as { admin_comment: string }).admin_comment], ['blocked', 'Not your brand'])
      assert.deepEqual(listedB!.map((s) => [s.id, s.account, s.name, s.status]), [[bees, b.id, 'Bees', 'moderation']])
      assert.deepEqual(approved, { id: template, status: 'approved' })
      assert.deepEqual(every!.map((x) => [x.id, x.account, x.status, x.text]), [
        [template, a.id, 'approved', 'Your code is {{code}}'],
        [(templateAdded as { id: number }).id, b.id, 'moderation', 'Hello from B'],
      ])
      assert.deepEqual((await listViberTemplates(t.deps, b.id)).map((x) => x.text), ['Hello from B'])

      const listed = await get(a, '/viber/senders')
      assert.equal(listed.status, 200)
      assert.deepEqual(listed.body, [
        { id: verifiable, status: 'verified', name: 'Verify Me', service_type: 'shop', web_site: 'https://shop.example', description: 'Orders', country: 'UA', countries: ['UA'], traffic_type: 'transactional', admin_comment: null, owner: 'you' },
        { id: blockable, status: 'blocked', name: 'Block Me', service_type: '', web_site: '', description: '', country: '', countries: [], traffic_type: '', admin_comment: 'Not your brand', owner: 'you' },
        { id: shop, status: 'moderation', name: 'MyShop', service_type: 'retail', web_site: 'https://my.example', description: 'Parcels', country: 'PL', countries: ['PL'], traffic_type: 'promo', admin_comment: null, owner: 'you' },
      ])
      for (const record of listed.body as Record<string, unknown>[]) assertSenderTypes(record)
      assert.match(listed.raw, /"id":\d+,"status"/, 'ids are JSON integers')

      const one = await get(a, `/viber/senders/${blockable}`)
      assert.deepEqual(one, { status: 200, body: (listed.body as unknown[])[1], raw: one.raw })
      assertSenderTypes(one.body as Record<string, unknown>)
      assert.deepEqual(((await get(b, '/viber/senders')).body as { id: number }[]).map((s) => s.id), [bees])
    })

    it("answers 404 to an account asking for another account's sender name, as for an unknown one", async () => {
      const [ofA] = (await get(a, '/viber/senders')).body as { id: number }[]
      const probe = await get(b, `/viber/senders/${ofA!.id}`)
      assert.deepEqual([probe.status, probe.body], [404, { error_code: 404, message: 'Sender not found' }])
    })

    it('lets a campaign use only a verified sender name of its own account, and says why otherwise', async () => {
      const senders = (await get(a, '/viber/senders')).body as { id: number; status: string }[]
      const idOf = (status: string) => senders.find((s) => s.status === status)!.id
      assert.equal((await requireActiveViberSender(t.deps, a.id, idOf('verified'))).name, 'Verify Me')
      const refusal = async (accountId: number, id: number) => {
        const err = await requireActiveViberSender(t.deps, accountId, id).then(() => undefined, (e: Error & { code: string }) => e)
        assert.equal(err?.code, 'invalid')
        return err.message
      }
      assert.equal(await refusal(a.id, idOf('moderation')), `Argument sender_id: sender name ${idOf('moderation')} is still in moderation`)
      assert.equal(await refusal(a.id, idOf('blocked')), `Argument sender_id: sender name ${idOf('blocked')} is blocked`)
      assert.equal(await refusal(a.id, 999_999), 'Argument sender_id: sender name 999999 is not a sender name of this account')
      assert.equal(await refusal(b.id, idOf('verified')), `Argument sender_id: sender name ${idOf('verified')} is not a sender name of this account`, "another account's verified name")
    })

    it('accepts a system message equal to an approved template of the account (trimmed), and refuses any other text', async () => {
      const pending = await registerViberTemplate(t.deps, a.id, 'Pending text')
      const ofB = await registerViberTemplate(t.deps, b.id, 'B only')
      await approveViberTemplate(t.deps, ofB)
      await requireApprovedTemplate(t.deps, a.id, 'Your code is {{code}}')
      await requireApprovedTemplate(t.deps, a.id, '  Your code is {{code}}\n')
      const message = 'Argument message: a system message (message_type 3) must equal the text of an approved template'
      for (const text of ['your code is {{code}}', 'Your code is  {{code}}', 'Your code is', 'Pending text', 'B only', '', 'a\u0000b']) {
        await assert.rejects(requireApprovedTemplate(t.deps, a.id, text), (err: Error & { code: string }) => err.code === 'invalid' && err.message === message, JSON.stringify(text))
      }
      await approveViberTemplate(t.deps, pending)
      await requireApprovedTemplate(t.deps, a.id, 'Pending text')
    })

    it('refuses a blank, too long or control-character name, a bad country, a repeated name, a too long or repeated template, an unknown or deleted account and unknown ids, storing nothing', async () => {
      const count = async () => [(await t.deps.db.selectFrom('viber_senders').select('id').execute()).length, (await t.deps.db.selectFrom('viber_templates').select('id').execute()).length]
      const before = await count()
      await assert.rejects(registerViberSender(t.deps, a.id, { name: '   ' }), /must not be blank/)
      await assert.rejects(registerViberSender(t.deps, a.id, { name: 'x'.repeat(101) }), /name must be at most 100 characters/)
      await registerViberSender(t.deps, a.id, { name: '😀'.repeat(100) })
      await assert.rejects(registerViberSender(t.deps, a.id, { name: 'a\u0000b' }), /control characters/)
      await assert.rejects(registerViberSender(t.deps, a.id, { name: 'Fine', country: 'UKR' }), /two-letter code/)
      await assert.rejects(registerViberSender(t.deps, a.id, { name: 'MyShop' }), /already has the Viber sender "MyShop"/)
      await assert.rejects(registerViberSender(t.deps, 999_999, { name: 'Ghost' }), /account 999999 not found/)
      await assert.rejects(registerViberTemplate(t.deps, a.id, 'x'.repeat(1001)), /at most 1000 characters/)
      await registerViberTemplate(t.deps, a.id, 'y'.repeat(1000))
      await assert.rejects(registerViberTemplate(t.deps, a.id, ' \n '), /must not be blank/)
      await assert.rejects(registerViberTemplate(t.deps, a.id, 'Pending text'), /already has this template/)
      await assert.rejects(moderateViberSender(t.deps, 999_999, 'verify'), /Viber sender 999999 not found/)
      await assert.rejects(approveViberTemplate(t.deps, 999_999), /Viber template 999999 not found/)
      const gone = await t.account('gone')
      await deleteAccount(t.deps, gone.id)
      await assert.rejects(registerViberSender(t.deps, gone.id, { name: 'Late' }), new RegExp(`account ${gone.id} not found`))
      await assert.rejects(registerViberTemplate(t.deps, gone.id, 'Late'), new RegExp(`account ${gone.id} not found`))
      assert.deepEqual(await count(), [before[0]! + 1, before[1]! + 1], 'only the two valid ones were stored')
    })

    it('documents both routes with the published record in the OpenAPI document', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>> }>()
      const ok = (path: string) => document.paths[path]?.get?.responses['200']?.content['application/json']?.schema
      const item = (ok('/viber/senders') as { items: { properties: Record<string, unknown> } }).items
      assert.deepEqual(Object.keys(item.properties), Object.keys(SENDER_TYPES))
      assert.deepEqual(Object.keys((ok('/viber/senders/{id}') as { properties: Record<string, unknown> }).properties), Object.keys(SENDER_TYPES))
    })
  })
}
