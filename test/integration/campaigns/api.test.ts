// The campaign routes (API.md 4.2): every field of 4.2.1 and its rules, the published limits, tests, drafts,
// scheduled campaigns with PATCH, list filters, and tenant isolation. A refused request changes nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase } from '../../helpers/factories.js'
import { HTML, campaignSetup, campaignStatus, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { toWireDate } from '../../../src/lib/wire-date.js'
import * as campaignsRepo from '../../../src/storage/repos/campaigns.js'

const base64 = (text: string) => Buffer.from(text).toString('base64')

for (const dialect of DIALECTS) {
  describe(`campaign routes on ${dialect}`, () => {
    let t: TestApp
    let setup: CampaignSetup

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 1000 })
      setup = await campaignSetup(t, 25)
    })
    after(async () => {
      await t.close()
    })

    it('refuses bad campaigns with a 4xx naming the problem, and stores nothing', async () => {
      const before = await snapshotDatabase(t.deps)
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [{ sender_email: 'stranger@example.com' }, 422, /Sender/],
        [{ body: undefined }, 422, /body or template_id/],
        [{ body: 'not base64 at all!' }, 422, /Base64/],
        [{ template_id: 999999, body: undefined }, 404, /Template not found/],
        [{ list_id: undefined }, 422, /list_id/],
        [{ list_id: 987654 }, 404, /Book not found/],
        [{ list_id: Array.from({ length: 11 }, (_, i) => i + 1) }, 422, /at most 10/],
        [{ is_test: true, list_id: [setup.bookId, setup.bookId + 1000] }, 422, /one list for a test/],
        [{ segment_id: 5, list_id: undefined }, 404, /Segment not found/],
        [{ send_date: '2001-01-01 10:00:00' }, 422, /earlier than the current/],
        [{ send_date: '2030-02-30 10:00:00' }, 422, /YYYY-MM-DD HH:MM:SS/],
        [{ attachments: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, 'x'])) }, 422, /at most 5/],
        [{ attachments_binary: { 'a.bin': '***' } }, 422, /not Base64/],
        [{ attachments: { 'x\r\nContent-Type: text/html': 'x' } }, 422, /invalid file name/],
        [{ type: 'campaign' }, 422, /draft/],
        [{ body_amp: base64('<html ⚡4email><body>x</body></html>') }, 403, /AMP/],
        [{ body: base64('<p>{{#if}}</p>') }, 201, /./],
      ]
      for (const [fields, status, message] of cases) {
        const answer = await createCampaign(t, setup, fields)
        if (status === 201) continue
        assert.equal(answer.statusCode, status, `${JSON.stringify(fields)}: ${answer.body}`)
        const body = answer.json<{ error_code: number; message: string }>()
        assert.equal(typeof body.error_code, 'number')
        assert.match(body.message, message, JSON.stringify(fields))
      }
      const afterRows = await snapshotDatabase(t.deps)
      // The one campaign with a broken template was accepted (its messages end as not sent): leave it out.
      afterRows.campaigns = afterRows.campaigns!.slice(0, before.campaigns!.length)
      afterRows.campaign_lists = before.campaign_lists!
      afterRows.jobs = afterRows.jobs!.slice(0, before.jobs!.length)
      afterRows.ledger_entries = afterRows.ledger_entries!.slice(0, before.ledger_entries!.length)
      assert.deepEqual(afterRows, before)
    })

    it('limits campaigns per hour with a 429, a Retry-After and the SendPulse error body', async () => {
      const limited = await startTestApp(dialect, { campaignsPerHour: 2 })
      try {
        const s = await campaignSetup(limited, 1)
        for (let i = 0; i < 2; i++) assert.equal((await createCampaign(limited, s)).statusCode, 200)
        const refused = await createCampaign(limited, s)
        assert.equal(refused.statusCode, 429)
        assert.match(refused.json<{ message: string }>().message, /at most 2 an hour/)
        assert.equal(typeof refused.json<{ error_code: number }>().error_code, 'number')
        assert.ok(Number(refused.headers['retry-after']) > 3500, `Retry-After ${refused.headers['retry-after']}`)
        limited.clock.advance(3_600_001)
        assert.equal((await createCampaign(limited, s)).statusCode, 200, 'allowed again an hour later')
      } finally {
        await limited.close()
      }
    })

    it('writes the price off the balance at creation, and refuses a campaign the balance cannot pay', async () => {
      const balance = async () => (await t.call(setup.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
      const before = await balance()
      const created = (await createCampaign(t, setup)).json<{ count: number; tariff_email_qty: number }>()
      assert.equal(created.count, 25)
      assert.equal(created.tariff_email_qty, 25)
      assert.equal(Math.round((before - (await balance())) * 1e4), 25 * 44)
      const poor = await startTestApp(dialect, { emailPrice: 10 })
      try {
        const s = await campaignSetup(poor, 11)
        const refused = await createCampaign(poor, s)
        assert.equal(refused.statusCode, 422)
        assert.match(refused.json<{ message: string }>().message, /Not enough money/)
      } finally {
        await poor.close()
      }
    })

    it('sends a test campaign to the sender alone (4 → 8), and keeps a draft (26) unsent', async () => {
      const test = (await createCampaign(t, setup, { is_test: true })).json<{ id: number; status: number; count: number }>()
      assert.deepEqual([test.status, test.count], [4, 1])
      const draft = (await createCampaign(t, setup, { type: 'draft', name: 'Later' })).json<{ id: number; status: number }>()
      assert.equal(draft.status, 26)
      const channel = captureChannel()
      await dispatcher(t, channel).drain()
      assert.equal(await campaignStatus(t, setup, test.id), 8)
      const sent = await t.deps.db.selectFrom('messages').select(['address as email', 'status']).where('campaign_id', '=', test.id).execute()
      assert.deepEqual(sent, [{ email: setup.sender, status: 2 }])
      const outbox = (await t.call(setup.account, { method: 'GET', url: `/outbox?campaign_id=${test.id}` })).json<{ kind: string; to: string; subject: string; html: string; status: string }[]>()
      assert.deepEqual(outbox.map((e) => [e.kind, e.to, e.subject, e.status]), [['campaign', setup.sender, 'Hi News', 'captured']])
      assert.match(outbox[0]!.html, /<h1>Hello News<\/h1>/, 'the captured email as it was rendered')
      assert.equal(await campaignStatus(t, setup, draft.id), 26)
      assert.equal((await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', draft.id).execute()).length, 0)
    })

    it('holds a scheduled campaign until its time, lists it as planned, and takes edits until then', async () => {
      const at = toWireDate(t.clock.now + 3_600_000)
      const created = (await createCampaign(t, setup, { send_date: at, name: 'Scheduled' })).json<{ id: number }>()
      const channel = captureChannel()
      const d = dispatcher(t, channel)
      await d.drain()
      assert.equal(await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', created.id).where('status', '=', 2).execute().then((r) => r.length), 0)
      const planned = (await t.call(setup.account, { method: 'GET', url: '/campaigns?planed=1' })).json<{ id: number; send_date: string }[]>()
      assert.deepEqual(planned.map((c) => [c.id, c.send_date]), [[created.id, at]])

      const later = toWireDate(t.clock.now + 7_200_000)
      const edited = await t.call(setup.account, { method: 'PATCH', url: `/campaigns/${created.id}`, payload: { name: 'Renamed', subject: 'New {{name}}', body: base64('<p>Edited {{name}}</p>'), send_date: later } })
      assert.deepEqual(edited.json(), { result: true, id: created.id })
      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.id}` })).json<{ name: string; send_date: string; message: { body: string; subject: string } }>()
      assert.deepEqual([detail.name, detail.send_date, detail.message.subject, detail.message.body], ['Renamed', later, 'New {{name}}', '<p>Edited {{name}}</p>'])

      t.clock.advance(3_700_000)
      await d.drain()
      assert.equal(await campaignStatus(t, setup, created.id), 2, 'not yet: the edit moved it an hour later')
      t.clock.advance(3_600_000)
      await d.drain()
      assert.equal(await campaignStatus(t, setup, created.id), 3)
      const refused = await t.call(setup.account, { method: 'PATCH', url: `/campaigns/${created.id}`, payload: { name: 'Too late' } })
      assert.equal(refused.statusCode, 422)
    })

    it('lands an edit only on a campaign still editable when the update runs, not when it was read', async () => {
      const nameAndStatus = async (id: number) => (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })).json<{ name: string; status: number }>()
      // Read while scheduled, canceled before the edit reaches the database.
      const canceled = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + 3_600_000), name: 'Read, then canceled' })).json<{ id: number }>().id
      const read = await campaignsRepo.findCampaign(t.deps.db, setup.account.id, canceled)
      assert.equal(read?.status, 13, 'editable when read')
      assert.equal((await t.call(setup.account, { method: 'DELETE', url: `/campaigns/${canceled}` })).statusCode, 200)
      await campaignsRepo.editCampaign(t.deps.db, canceled, { name: 'Edited after the cancel' }, t.clock.now)
      const afterCancel = await nameAndStatus(canceled)
      assert.deepEqual([afterCancel.name, afterCancel.status], ['Read, then canceled', 16])
      // Read while scheduled, its sending time passed before the edit reached the database.
      const started = (await createCampaign(t, setup, { send_date: toWireDate(t.clock.now + 3_600_000), name: 'Read, then started' })).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
      assert.equal((await campaignsRepo.findCampaign(t.deps.db, setup.account.id, started))?.status, 2, 'copied and waiting for its time')
      t.clock.advance(3_600_000)
      await campaignsRepo.editCampaign(t.deps.db, started, { name: 'Edited after the start', subject: 'Changed mid-send' }, t.clock.now)
      assert.equal((await nameAndStatus(started)).name, 'Read, then started')
      await dispatcher(t, captureChannel()).drain()
      assert.equal((await nameAndStatus(started)).status, 3)
    })

    it('answers an address of the lists as queued while the recipients are being copied (13), and 404 for one that will not be', async () => {
      const s = await campaignSetup(t, 3)
      await t.call(s.account, { method: 'POST', url: `/addressbooks/${s.bookId}/emails/unsubscribe`, payload: { emails: [s.emails[1]] } })
      await t.call(s.account, { method: 'POST', url: '/blacklist', payload: { emails: base64(s.emails[2]!) } })
      const created = (await createCampaign(t, s)).json<{ id: number; status: number }>()
      assert.equal(created.status, 13)
      const ask = (email: string) => t.call(s.account, { method: 'GET', url: `/campaigns/${created.id}/email/${email}` })
      const queued = await ask(s.emails[0]!)
      assert.equal(queued.statusCode, 200, queued.body)
      assert.deepEqual(queued.json(), { sent_date: null, send_date: null, global_status: 0, global_status_explain: 'In queue', detail_status: 0, detail_status_explain: 'In queue' })
      assert.equal((await ask(s.emails[0]!.replace(/@.+$/, (domain) => domain.toUpperCase()))).statusCode, 200, 'the domain in any case')
      for (const email of [s.emails[1]!, s.emails[2]!, 'stranger@example.com', setup.emails[0]!]) {
        const missing = await ask(email)
        assert.equal(missing.statusCode, 404, email)
        assert.deepEqual(missing.json(), { error_code: 404, message: 'Email not found in the campaign' })
      }
      await dispatcher(t, captureChannel()).drain()
      assert.equal((await ask(s.emails[0]!)).json<{ global_status: number }>().global_status, 2)
    })

    it('leaves out unsubscribed, blacklisted and repeated addresses, and counts them', async () => {
      const s = await campaignSetup(t, 4)
      const second = (await t.call(s.account, { method: 'POST', url: '/addressbooks', payload: { bookName: `second ${s.bookId}` } })).json<{ id: number }>().id
      await t.call(s.account, { method: 'POST', url: `/addressbooks/${second}/emails`, payload: { emails: [s.emails[0], 'only.second@example.com'] } })
      await t.call(s.account, { method: 'POST', url: `/addressbooks/${s.bookId}/emails/unsubscribe`, payload: { emails: [s.emails[1]] } })
      await t.call(s.account, { method: 'POST', url: '/blacklist', payload: { emails: base64(s.emails[2]!) } })
      const created = (await createCampaign(t, s, { list_id: [s.bookId, second] })).json<{ id: number }>()
      await dispatcher(t, captureChannel()).drain()
      const detail = (await t.call(s.account, { method: 'GET', url: `/campaigns/${created.id}` })).json<{ all_email_qty: number; skipped_email_qty: number }>()
      assert.deepEqual([detail.all_email_qty, detail.skipped_email_qty], [3, 3], 'reader0 once, reader3, only.second; reader1, reader2 and the second reader0 left out')
      const to = await t.deps.db.selectFrom('messages').select('address as email').where('campaign_id', '=', created.id).orderBy('address').execute()
      assert.deepEqual(to.map((m) => m.email), ['only.second@example.com', s.emails[0], s.emails[3]].sort())
    })

    it('reads a dynamic list when a scheduled campaign starts, so contacts added until then receive it', async () => {
      const s = await campaignSetup(t, 2)
      const created = (await createCampaign(t, s, { send_date: toWireDate(t.clock.now + 3_600_000), use_dynamic_list: true })).json<{ id: number }>()
      await t.call(s.account, { method: 'POST', url: `/addressbooks/${s.bookId}/emails`, payload: { emails: ['late.joiner@example.com'] } })
      const moved = await t.call(s.account, { method: 'PATCH', url: `/campaigns/${created.id}`, payload: { send_date: toWireDate(t.clock.now + 7_200_000) } })
      assert.equal(moved.statusCode, 200, moved.body)
      const d = dispatcher(t, captureChannel())
      await d.drain()
      assert.equal(await campaignStatus(t, s, created.id), 13, 'nothing copied before the sending time')
      t.clock.advance(3_600_000)
      await t.call(s.account, { method: 'POST', url: `/addressbooks/${s.bookId}/emails`, payload: { emails: ['later.joiner@example.com'] } })
      await d.drain()
      assert.equal(await campaignStatus(t, s, created.id), 13, 'the edit moved the sending an hour later')
      t.clock.advance(3_600_000)
      await d.drain()
      assert.equal(await campaignStatus(t, s, created.id), 3)
      const to = await t.deps.db.selectFrom('messages').select('address as email').where('campaign_id', '=', created.id).execute()
      assert.ok(to.some((m) => m.email === 'late.joiner@example.com'), 'the contact added after creation got it')
      assert.ok(to.some((m) => m.email === 'later.joiner@example.com'), 'and the one added before the moved sending time')
      const free = await startTestApp(dialect)
      try {
        const onFree = await campaignSetup(free, 1)
        await free.deps.db.updateTable('accounts').set({ plan: 'free' }).where('id', '=', onFree.account.id).execute()
        const refused = await createCampaign(free, onFree, { use_dynamic_list: true })
        assert.equal(refused.statusCode, 403, refused.body)
        assert.equal(refused.json<{ error_code: number }>().error_code, 3030303030, 'dynamic lists need a paid plan')
      } finally {
        await free.close()
      }
    })

    it('lists campaigns with statistics, filtered by status and ordered', async () => {
      const list = (await t.call(setup.account, { method: 'GET', url: '/campaigns?limit=100' })).json<{ id: number; status: number; statistics: Record<string, number>; overdraft_price: number; message: { list_id: number } }[]>()
      assert.ok(list.length >= 4, `campaigns listed: ${list.length}`)
      assert.ok(list.every((c, i) => i === 0 || list[i - 1]!.id > c.id), 'newest first')
      assert.equal(typeof list[0]!.overdraft_price, 'number')
      assert.equal(list[0]!.message.list_id, setup.bookId)
      assert.deepEqual(Object.keys(list[0]!.statistics).sort(), ['delivered', 'error', 'link_redirected', 'opening', 'sent', 'unsubscribe'])
      const sent = (await t.call(setup.account, { method: 'GET', url: '/campaigns?status[]=3&status[]=8&order=asc' })).json<{ id: number; status: number }[]>()
      assert.ok(sent.length >= 2, `sent campaigns: ${sent.length}`)
      assert.ok(sent.every((c) => c.status === 3 || c.status === 8), 'only statuses 3 and 8')
      assert.ok(sent.every((c, i) => i === 0 || sent[i - 1]!.id < c.id), 'oldest first')
      const viaBody = await t.call(setup.account, { method: 'GET', url: '/campaigns', payload: { limit: 1, offset: 1 } })
      assert.equal(viaBody.json<unknown[]>().length, 1, 'limit and offset in a GET body (npm SDK)')
    })

    it('keeps every campaign route to its own account', async () => {
      const own = (await createCampaign(t, setup, { type: 'draft' })).json<{ id: number }>().id
      const other = await t.account()
      for (const [method, url, payload] of [
        ['GET', `/campaigns/${own}`],
        ['PATCH', `/campaigns/${own}`, { name: 'mine now' }],
        ['DELETE', `/campaigns/${own}`],
        ['GET', `/campaigns/${own}/countries`],
        ['GET', `/campaigns/${own}/referrals`],
        ['GET', `/campaigns/${own}/email/${setup.emails[0]}`],
        ['GET', `/outbox?campaign_id=${own}`],
      ] as const) {
        const answer = await t.call(other, { method, url, payload })
        assert.equal(answer.statusCode, 404, `${method} ${url}`)
      }
      assert.deepEqual((await t.call(other, { method: 'GET', url: '/campaigns' })).json(), [])
      const theirs = await t.call(other, { method: 'POST', url: '/campaigns', payload: { sender_name: 'x', sender_email: setup.sender, subject: 's', body: base64(HTML), list_id: setup.bookId } })
      assert.equal(theirs.statusCode, 422, 'another account\'s sender is not theirs')
      assert.equal(await campaignStatus(t, setup, own), 26)
    })

    it('sends attachments from both fields, and reads the npm SDK\'s empty attachments as none', async () => {
      const created = await createCampaign(t, setup, { attachments: { 'note.txt': 'hello' }, attachments_binary: { 'logo.bin': base64('\u0001\u0002') } })
      assert.equal(created.statusCode, 200, created.body)
      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${created.json<{ id: number }>().id}` })).json<{ message: { attachments: string } }>()
      assert.equal(detail.message.attachments, 'note.txt, logo.bin')
      for (const empty of ['', '{}', null]) assert.equal((await createCampaign(t, setup, { attachments: empty, name: '' })).statusCode, 200, JSON.stringify(empty))
    })
  })
}
