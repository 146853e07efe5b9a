// The campaign report's Tidings extensions: GET /campaigns/{id}/recipients (statuses in words, keyset pages by
// message id, status filter) and GET /campaigns/{id}/timeline (first opens and clicks per UTC hour or day), on a
// known campaign whose opens straddle a UTC hour and day boundary; another account's campaign answered as none; bad
// parameters refused with the error body; both documented as extensions. Both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import * as messages from '../../../src/storage/repos/messages.js'

interface Recipient {
  id: number
  email: string
  status: number
  status_explain: string
  error: string | null
  sent: string | null
  opened: string | null
  clicked: string | null
  country: string | null
}

/** 2026-11-23 00:00:00 UTC: the opens below straddle it, and the hour after it. */
const DAY = Date.UTC(2026, 10, 23)
const HOUR = 3_600_000

for (const dialect of DIALECTS) {
  describe(`the campaign report routes on ${dialect}`, () => {
    let t: TestApp
    let setup: CampaignSetup
    let id: number
    /** Message ids of reader0 … reader6, in id order. */
    let ids: number[]
    const get = (url: string, who = setup.account) => t.call(who, { method: 'GET', url })

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      setup = await campaignSetup(t, 7)
      id = (await createCampaign(t, setup)).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
      const rows = await t.deps.db.selectFrom('messages').select(['id', 'address']).where('campaign_id', '=', id).orderBy('id').execute()
      assert.deepEqual(
        rows.map((r) => r.address),
        setup.emails,
      )
      ids = rows.map((r) => Number(r.id))
      const [m0, m1, m2, m3, m4] = ids as [number, number, number, number, number]
      const db = t.deps.db
      await messages.markOpened(db, [
        { id: m0, country: 'UA', at: DAY - 1 },
        { id: m1, country: 'PL', at: DAY },
        { id: m2, country: 'UA', at: DAY + HOUR - 1 },
        { id: m3, country: 'DE', at: DAY + HOUR },
      ])
      await messages.markClicked(db, [
        { id: m0, at: DAY + 1000 },
        { id: m3, at: DAY + HOUR + 5 },
      ])
      await messages.markReported(db, m4, { status: 8, error: '550 5.1.1 no such user', now: DAY })
    })
    after(() => t.close())

    it('lists every recipient in id order with its status in words, dates and country', async () => {
      const res = await get(`/campaigns/${id}/recipients`)
      assert.equal(res.statusCode, 200, res.body)
      const all = res.json<Recipient[]>()
      assert.deepEqual(
        all.map((r) => [r.id, r.email, r.status, r.status_explain, r.opened, r.clicked, r.country, r.error]),
        [
          [ids[0], setup.emails[0], 4, 'Link redirected', '2026-11-22 23:59:59', '2026-11-23 00:00:01', 'UA', null],
          [ids[1], setup.emails[1], 3, 'Opened', '2026-11-23 00:00:00', null, 'PL', null],
          [ids[2], setup.emails[2], 3, 'Opened', '2026-11-23 00:59:59', null, 'UA', null],
          [ids[3], setup.emails[3], 4, 'Link redirected', '2026-11-23 01:00:00', '2026-11-23 01:00:00', 'DE', null],
          [ids[4], setup.emails[4], 8, 'Unavailable', null, null, null, '550 5.1.1 no such user'],
          [ids[5], setup.emails[5], 2, 'Delivered', null, null, null, null],
          [ids[6], setup.emails[6], 2, 'Delivered', null, null, null, null],
        ],
      )
      assert.ok(all.every((r) => r.sent !== null && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(r.sent)))
    })

    it('filters by status and pages by keyset with no recipient twice or missed', async () => {
      const emailsOf = async (url: string) => (await get(url)).json<Recipient[]>().map((r) => r.email)
      assert.deepEqual(await emailsOf(`/campaigns/${id}/recipients?status=3`), [setup.emails[1], setup.emails[2]])
      assert.deepEqual(await emailsOf(`/campaigns/${id}/recipients?status=4`), [setup.emails[0], setup.emails[3]])
      assert.deepEqual(await emailsOf(`/campaigns/${id}/recipients?status=5`), [])
      for (const [filter, expected] of [
        ['', setup.emails],
        ['&status=3', [setup.emails[1], setup.emails[2]]],
        ['&status=2', [setup.emails[5], setup.emails[6]]],
      ] as const) {
        const seen: string[] = []
        let after = 0
        for (let page = 0; page < 10; page++) {
          const rows = (await get(`/campaigns/${id}/recipients?limit=2&after=${after}${filter}`)).json<Recipient[]>()
          assert.ok(rows.length <= 2)
          if (rows.length === 0) break
          seen.push(...rows.map((r) => r.email))
          after = rows.at(-1)!.id
        }
        assert.deepEqual(seen, expected, `pages of ${filter || 'every status'}`)
      }
      // After the last page: nothing; `limit` 0 is the largest page.
      assert.deepEqual(await emailsOf(`/campaigns/${id}/recipients?after=${ids[6]}`), [])
      assert.equal((await emailsOf(`/campaigns/${id}/recipients?limit=0&after=0`)).length, 7)
    })

    it('counts first opens and first clicks per UTC hour and per UTC day', async () => {
      const hours = await get(`/campaigns/${id}/timeline?bucket=hour`)
      assert.equal(hours.statusCode, 200, hours.body)
      assert.deepEqual(hours.json(), [
        { time: '2026-11-22 23:00:00', opens: 1, clicks: 0 },
        { time: '2026-11-23 00:00:00', opens: 2, clicks: 1 },
        { time: '2026-11-23 01:00:00', opens: 1, clicks: 1 },
      ])
      assert.deepEqual((await get(`/campaigns/${id}/timeline`)).json(), hours.json(), 'hours by default')
      assert.deepEqual((await get(`/campaigns/${id}/timeline?bucket=day`)).json(), [
        { time: '2026-11-22 00:00:00', opens: 1, clicks: 0 },
        { time: '2026-11-23 00:00:00', opens: 3, clicks: 2 },
      ])
      // From the bucket the time falls in.
      assert.deepEqual((await get(`/campaigns/${id}/timeline?bucket=hour&from=${encodeURIComponent('2026-11-23 00:30:00')}`)).json(), [
        { time: '2026-11-23 00:00:00', opens: 2, clicks: 1 },
        { time: '2026-11-23 01:00:00', opens: 1, clicks: 1 },
      ])
    })

    it("answers another account's campaign as one that does not exist, as GET /campaigns/{id} does", async () => {
      const other = await t.account('someone else')
      const none = await get(`/campaigns/999999999`, other)
      for (const path of ['recipients', 'timeline']) {
        const foreign = await get(`/campaigns/${id}/${path}`, other)
        const missing = await get(`/campaigns/999999999/${path}`, other)
        assert.equal(foreign.statusCode, 404, foreign.body)
        assert.equal(foreign.statusCode, none.statusCode)
        assert.deepEqual(foreign.json(), missing.json())
        assert.deepEqual(Object.keys(foreign.json()).sort(), ['error_code', 'message'])
      }
    })

    it('refuses bad parameters with the error body, never a 500', async () => {
      for (const query of [
        'recipients?status=-1',
        'recipients?status=x',
        'recipients?after=-1',
        'recipients?limit=1.5',
        'recipients?after=99999999999999999999',
        'timeline?bucket=week',
        'timeline?from=yesterday',
        `timeline?from=${encodeURIComponent('2026-13-01 00:00:00')}`,
      ]) {
        const res = await get(`/campaigns/${id}/${query}`)
        assert.equal(res.statusCode, 422, `${query}: ${res.body}`)
        const body = res.json<{ error_code: unknown; message: unknown }>()
        assert.deepEqual(Object.keys(body).sort(), ['error_code', 'message'], query)
        assert.equal(typeof body.message, 'string')
      }
      assert.equal((await get('/campaigns/0/recipients')).statusCode, 422)
    })

    it('is documented in the OpenAPI document as Tidings extensions', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: Record<string, unknown> }> }>()
      assert.equal(doc.paths['/campaigns/{id}/recipients']?.get?.['x-tidings-extension'], true)
      assert.equal(doc.paths['/campaigns/{id}/timeline']?.get?.['x-tidings-extension'], true)
    })
  })
}
