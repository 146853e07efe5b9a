// SMS sender IDs: the operator registers and moderates them with `tidings sms senders …` (run as a real
// process against the test server's database), and GET /sms/senders answers the account's own as a bare array
// (COMPAT.md "SMS and Viber" 2) with API.md 3.4's statuses. The OpenAPI document shows these routes' shapes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { listSmsSenders, moderateSmsSender, registerSmsSender } from '../../../src/services/sms/senders.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

for (const dialect of DIALECTS) {
  describe(`SMS sender IDs on ${dialect}`, () => {
    let t: TestApp
    let a: TestAccount
    let b: TestAccount
    const tidings = async (...args: string[]) => JSON.parse((await run(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: t.database.url } })).stdout) as unknown
    const senders = async (who: TestAccount) => {
      const res = await t.call(who, { method: 'GET', url: '/sms/senders' })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<unknown>()
    }

    before(async () => {
      t = await startTestApp(dialect)
      a = await t.account('A')
      b = await t.account('B')
    })
    after(() => t.close())

    it('answers [] before any sender is registered', async () => {
      assert.deepEqual(await senders(a), [])
    })

    // Each CLI run is a process start (one to two seconds): they all go in one parallel round.
    it('registers sender IDs in moderation, approves and rejects them from the CLI; each account sees only its own', async () => {
      const bees = await registerSmsSender(t.deps, b.id, 'Bees')
      const approvable = await registerSmsSender(t.deps, a.id, 'Approve1')
      const rejectable = await registerSmsSender(t.deps, a.id, '+380631234567')
      const [added, approved, rejected, ofB, refused] = await Promise.all([
        tidings('sms', 'senders', 'add', '--account', String(a.id), 'MyShop'),
        tidings('sms', 'senders', 'approve', String(approvable)),
        tidings('sms', 'senders', 'reject', String(rejectable)),
        tidings('sms', 'senders', 'list', '--account', String(b.id)),
        tidings('sms', 'senders', 'add', '--account', '999999', 'Ghost').then(() => undefined, (err: Error) => err),
      ])
      const shop = (added as { id: number }).id
      assert.deepEqual(added, { id: shop })
      assert.deepEqual(approved, { id: approvable, status: 1, status_explain: 'Active' })
      assert.deepEqual(rejected, { id: rejectable, status: 2, status_explain: 'Rejected' })
      assert.deepEqual((ofB as { id: number; account: number; sender: string; status: number; status_explain: string }[]).map((s) => [s.id, s.account, s.sender, s.status, s.status_explain]), [
        [bees, b.id, 'Bees', 0, 'In moderation'],
      ])
      assert.match(String(refused?.message), /account 999999 not found/, 'a message and a non-zero exit')

      assert.deepEqual(await senders(a), [
        { id: approvable, sender: 'Approve1', country: '', country_code: '', status: 1, status_explain: 'Active' },
        { id: rejectable, sender: '+380631234567', country: '', country_code: '', status: 2, status_explain: 'Rejected' },
        { id: shop, sender: 'MyShop', country: '', country_code: '', status: 0, status_explain: 'In moderation' },
      ])
      assert.deepEqual(((await senders(b)) as { id: number }[]).map((s) => s.id), [bees])
      const every = await listSmsSenders(t.deps)
      assert.deepEqual(every.map((s) => s.name).sort(), ['+380631234567', 'Approve1', 'Bees', 'MyShop'])
    })

    it('refuses a sender ID that is too long or not alphanumeric, a second one of the same name, an unknown account or sender', async () => {
      await assert.rejects(registerSmsSender(t.deps, a.id, 'TwelveLetter'), /Sender "TwelveLetter" is not valid/)
      await assert.rejects(registerSmsSender(t.deps, a.id, 'My-Shop'), /is not valid/)
      await assert.rejects(registerSmsSender(t.deps, a.id, 'MyShop'), /already has the sender "MyShop"/)
      await assert.rejects(registerSmsSender(t.deps, 999_999, 'Ghost'), /account 999999 not found/)
      await assert.rejects(moderateSmsSender(t.deps, 999_999, 'approve'), /SMS sender 999999 not found/)
      assert.equal((await t.deps.db.selectFrom('sms_senders').select('id').execute()).length, 4, 'nothing more was stored')
    })

    it('documents the SMS audience routes with their shapes in the OpenAPI document', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>> }>()
      const ok = (path: string, method: string) => document.paths[path]?.[method]?.responses['200']?.content['application/json']?.schema
      for (const [path, method] of [
        ['/sms/numbers', 'post'], ['/sms/numbers', 'put'], ['/sms/numbers', 'delete'], ['/sms/numbers/variables', 'post'],
        ['/addressbooks/{id}/phones/variable', 'post'], ['/sms/numbers/info/{addressBookId}/{phoneNumber}', 'get'],
        ['/sms/black_list', 'post'], ['/sms/black_list', 'delete'], ['/sms/black_list', 'get'], ['/sms/black_list/by_numbers', 'get'], ['/sms/senders', 'get'],
      ] as const) {
        assert.ok(ok(path, method), `${method} ${path}`)
      }
      const senderItem = (ok('/sms/senders', 'get') as { items: { properties: Record<string, unknown> } }).items
      assert.deepEqual(Object.keys(senderItem.properties), ['id', 'sender', 'country', 'country_code', 'status', 'status_explain'])
      const entry = (ok('/sms/black_list', 'get') as { properties: { data: { items: { properties: Record<string, { type: string }> } } } }).properties.data.items
      assert.equal(entry.properties.phone?.type, 'integer')
    })
  })
}
