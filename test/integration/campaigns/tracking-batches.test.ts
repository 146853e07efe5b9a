// Open-pixel and click hits stored a batch at a time (src/tracking/hit-batches.ts, hits.ts), on the messages of
// a real sent campaign: a batch changes exactly what the same hits changed one by one (first opens with their
// country, first clicks, every click of a link, the `open` and `redirect` events in order, received by a real
// webhook receiver); forged tokens record nothing; a hit that cannot be stored or whose message is gone does not
// stop the others; the hits waiting are bounded; closing the server waits for the batches it took.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { Writable } from 'node:stream'
import pino from 'pino'
import { sql } from 'kysely'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'
import { answerAndRecord, CampaignRows, type Hit } from '../../../src/tracking/hits.js'
import { TrackingHits } from '../../../src/tracking/hit-batches.js'
import { signToken } from '../../../src/tracking/signed-token.js'
import { signingKey } from '../../../src/tracking/signing-key.js'
import type { Dialect } from '../../../src/storage/db.js'

const PUBLIC = 'https://news.example.org'
const SHOP = 'https://shop.example/sale?x=1'
const BLOG = 'https://blog.example/'

interface Sent {
  campaignId: number
  /** Per recipient, in list order: its message id and the token of its links. */
  messages: { email: string; id: number; token: string }[]
}

/** A campaign to every contact of the set-up, sent into the capture channel; its tokens read from the outbox. */
async function sendCampaign(t: TestApp, setup: CampaignSetup): Promise<Sent> {
  const created = await createCampaign(t, setup, { name: 'Batches' })
  assert.equal(created.statusCode, 200, created.body)
  const campaignId = created.json<{ id: number }>().id
  await dispatcher(t, captureChannel()).drain()
  const outbox = (await t.call(setup.account, { method: 'GET', url: `/outbox?campaign_id=${campaignId}&limit=100` })).json<{ to: string; html: string }[]>()
  const rows = await t.deps.db.selectFrom('messages').select(['id', 'address']).where('campaign_id', '=', campaignId).execute()
  const messages = setup.emails.map((email) => {
    const html = outbox.find((o) => o.to === email)!.html
    return { email, id: Number(rows.find((r) => r.address === email)!.id), token: /\/t\/([^/"]+)\/open\.gif/.exec(html)![1]! }
  })
  return { campaignId, messages }
}

async function messageRow(t: TestApp, id: number) {
  const row = await t.deps.db.selectFrom('messages').select(['status', 'opened_at', 'clicked_at', 'country', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow()
  return { status: row.status, openedAt: row.opened_at === null ? null : Number(row.opened_at), clickedAt: row.clicked_at === null ? null : Number(row.clicked_at), country: row.country, updatedAt: Number(row.updated_at) }
}

/** The ids of every event stored so far: a test sees what it added. */
async function eventIds(t: TestApp): Promise<Set<number>> {
  return new Set((await t.deps.db.selectFrom('events').select('id').execute()).map((r) => Number(r.id)))
}

/** A pino logger whose lines the test reads. */
function capturedLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    },
  })
  return { log: pino({ level: 'warn' }, stream), lines }
}

/**
 * Holds the database until released: on SQLite its one connection (every query waits), on PostgreSQL the row of
 * `messageId` (its update waits).
 */
async function holdDatabase(t: TestApp, dialect: Dialect, messageId: number): Promise<() => Promise<void>> {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let held!: () => void
  const holding = new Promise<void>((resolve) => (held = resolve))
  const done = t.deps.db.transaction().execute(async (tx) => {
    const row = tx.selectFrom('messages').select('id').where('id', '=', messageId)
    await (dialect === 'postgres' ? row.forUpdate() : row).execute()
    held()
    await released
  })
  await holding
  return async () => {
    release()
    await done
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 50))

/** Until the server has accepted a connection (for 5 s at most; the assertion after it says what was missing). */
async function connected(t: TestApp): Promise<void> {
  const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))))
  for (let i = 0; i < 500 && (await connections()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

/** A GET on a connection of its own, closed after the answer (a kept-alive one would hold the server's close). */
function getOnce(url: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
      })
      .on('error', reject)
  })
}

for (const dialect of DIALECTS) {
  describe(`tracking hits in batches on ${dialect}`, () => {
    let t: TestApp
    let receiver: WebhookReceiver
    let setup: CampaignSetup
    let sent: Sent
    const messageOf = (i: number) => sent.messages[i]!

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, webhookAllowPrivate: true, trustProxy: true, publicUrl: PUBLIC })
      receiver = await startWebhookReceiver()
      setup = await campaignSetup(t, 12)
      const subscribed = await t.call(setup.account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url: receiver.url, actions: ['open', 'redirect'] } })
      assert.equal(subscribed.statusCode, 200, subscribed.body)
      sent = await sendCampaign(t, setup)
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    it('records a batch as its hits one by one: first opens with their country, first clicks, every click of a link, events in order', async () => {
      const [a, b, c, d] = [0, 1, 2, 3].map(messageOf) as [Sent['messages'][0], Sent['messages'][0], Sent['messages'][0], Sent['messages'][0]]
      const at = t.clock.now
      const hits: Hit[] = [
        { kind: 'open', messageId: a.id, ip: '8.8.8.8', at: at + 1000 },
        { kind: 'open', messageId: a.id, ip: '81.2.69.160', at: at + 2000 }, // not the first: nothing
        { kind: 'click', messageId: b.id, index: 0, at: at + 3000 }, // a first click opens too
        { kind: 'click', messageId: b.id, index: 0, at: at + 4000 }, // counts for the link, moves nothing
        { kind: 'click', messageId: c.id, index: 1, at: at + 5000 },
        { kind: 'open', messageId: c.id, ip: '8.8.8.8', at: at + 6000 }, // after a click: nothing, no country
        { kind: 'open', messageId: d.id, ip: '81.2.69.160', at: at + 7000 },
        { kind: 'click', messageId: d.id, index: 1, at: at + 8000 }, // opened in this batch, then clicked
        { kind: 'open', messageId: 999_999_999, ip: '8.8.8.8', at: at + 9000 }, // no such message
        { kind: 'click', messageId: a.id, index: 7, at: at + 9000 }, // no such link
      ]
      const answers = await answerAndRecord(t.deps, new CampaignRows(), hits)
      assert.deepEqual(answers, [true, true, SHOP, SHOP, BLOG, true, true, BLOG, false, undefined])

      assert.deepEqual(await messageRow(t, a.id), { status: 3, openedAt: at + 1000, clickedAt: null, country: 'US', updatedAt: at + 1000 })
      assert.deepEqual(await messageRow(t, b.id), { status: 4, openedAt: at + 3000, clickedAt: at + 3000, country: null, updatedAt: at + 3000 })
      assert.deepEqual(await messageRow(t, c.id), { status: 4, openedAt: at + 5000, clickedAt: at + 5000, country: null, updatedAt: at + 5000 })
      assert.deepEqual(await messageRow(t, d.id), { status: 4, openedAt: at + 7000, clickedAt: at + 8000, country: 'GB', updatedAt: at + 8000 })

      const statistics = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${sent.campaignId}` })).json<{ statistics: { general: { code: number; count: number }[] } }>()
      assert.deepEqual(statistics.statistics.general.filter((g) => g.code === 3 || g.code === 4).map((g) => [g.code, g.count]), [[3, 1], [4, 3]])
      assert.deepEqual((await t.call(setup.account, { method: 'GET', url: `/campaigns/${sent.campaignId}/countries` })).json(), { GB: 1, US: 1 })
      const referrals = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${sent.campaignId}/referrals` })).json<{ link: string; count: number }[]>()
      assert.deepEqual(referrals.map((r) => [r.link, r.count]).sort(), [[BLOG, 2], [SHOP, 2]])
      const perAddress = (await t.call(setup.account, { method: 'GET', url: `/emails/${d.email}/campaigns` })).json<{ statistic: { open: number; link: number } }>()
      assert.deepEqual([perAddress.statistic.open, perAddress.statistic.link], [1, 1])

      await new WebhookSender(t.deps).deliverDue()
      const events = receiver.received.flatMap((r) => r.events).filter((e) => e.task_id === String(sent.campaignId))
      const common = { task_id: String(sent.campaignId), task_name: 'Batches', book_id: String(setup.bookId), user_id: String(setup.account.id) }
      const expected = [
        { event: 'open', email: a.email, country: 'US', timestamp: String(Math.floor((at + 1000) / 1000)) },
        { event: 'redirect', email: b.email, link_url: SHOP, timestamp: String(Math.floor((at + 3000) / 1000)) },
        { event: 'redirect', email: b.email, link_url: SHOP, timestamp: String(Math.floor((at + 4000) / 1000)) },
        { event: 'redirect', email: c.email, link_url: BLOG, timestamp: String(Math.floor((at + 5000) / 1000)) },
        { event: 'open', email: d.email, country: 'GB', timestamp: String(Math.floor((at + 7000) / 1000)) },
        { event: 'redirect', email: d.email, link_url: BLOG, timestamp: String(Math.floor((at + 8000) / 1000)) },
      ]
      assert.deepEqual(
        events.map(({ id: _id, book_name: name, ...e }) => (assert.equal(typeof name, 'string'), e)),
        expected.map((e) => ({ ...common, ...e })),
      )
    })

    it('answers forged and altered tokens as before and records nothing for them, while the valid hits beside them count', async () => {
      const [valid, other] = [4, 5].map(messageOf) as [Sent['messages'][0], Sent['messages'][0]]
      const key = await signingKey(t.deps)
      const [payload, mac] = valid.token.split('.') as [string, string]
      const forged = [
        `${Buffer.from(String(other.id)).toString('base64url')}.${mac}`, // another message's id under this MAC
        `${payload}.${mac.slice(0, -2)}xx`, // an altered MAC
        `${payload}.${signToken(Buffer.alloc(32, 1), 'message', String(valid.id)).split('.')[1]}`, // signed with another key
        signToken(key, 'campaign', String(valid.id)), // signed for another use (an archived copy's)
        `${payload}=.${mac}`, // the payload spelled otherwise
      ]
      const before = await eventIds(t)
      const rowsBefore = await Promise.all([4, 5, 6, 7].map((i) => messageRow(t, messageOf(i).id)))
      const get = (url: string) => t.app.inject({ method: 'GET', url })
      const answers = await Promise.all([
        ...forged.flatMap((token) => [get(`/t/${token}/open.gif`), get(`/t/${token}/c/0`)]),
        get(`/t/${valid.token}/open.gif`),
      ])
      const valids = answers.splice(-1)
      for (const [i, answer] of answers.entries()) {
        const kind = i % 2 === 0 ? 'pixel' : 'click'
        assert.equal(answer.statusCode, 404, `${kind} of forged token ${forged[Math.floor(i / 2)]}`)
        if (kind === 'pixel') assert.equal(answer.headers['content-type'], 'image/gif')
      }
      assert.equal(valids[0]!.statusCode, 200)
      assert.equal((await messageRow(t, valid.id)).status, 3, 'the valid open counts')
      assert.deepEqual(await Promise.all([5, 6, 7].map((i) => messageRow(t, messageOf(i).id))), rowsBefore.slice(1), 'no other message changed')
      const added = (await t.deps.db.selectFrom('events').select(['id', 'action', 'payload']).execute()).filter((e) => !before.has(Number(e.id)))
      assert.deepEqual(added.map((e) => [e.action, (JSON.parse(e.payload) as { email: string }).email]), [['open', valid.email]])
      const referrals = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${sent.campaignId}/referrals` })).json<{ link: string; count: number }[]>()
      assert.deepEqual(referrals.map((r) => [r.link, r.count]).sort(), [[BLOG, 2], [SHOP, 2]], 'no click counted')
    })

    it('stores the other hits of a batch when one cannot be stored, and finds nothing for a message that is gone', async () => {
      const [kept, refused, gone, clicked] = [6, 7, 8, 9].map(messageOf) as [Sent['messages'][0], Sent['messages'][0], Sent['messages'][0], Sent['messages'][0]]
      // The database refuses to change one message: as a campaign deleted meanwhile, or a deadlock, would.
      if (dialect === 'sqlite') {
        await sql.raw(`create trigger refuse_hit before update on messages when old.id = ${refused.id} begin select raise(abort, 'refused'); end`).execute(t.deps.db)
      } else {
        await sql.raw(`create function refuse_hit() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`).execute(t.deps.db)
        await sql.raw(`create trigger refuse_hit before update on messages for each row when (old.id = ${refused.id}) execute function refuse_hit()`).execute(t.deps.db)
      }
      await t.deps.db.deleteFrom('messages').where('id', '=', gone.id).execute()
      const { log, lines } = capturedLog()
      const hits = new TrackingHits({ ...t.deps, log })
      assert.equal(await hits.open('warm.up', '8.8.8.8'), false, 'the keys are read before the batch')
      // Taken in one turn of the event loop: one batch.
      const answers = await Promise.allSettled([hits.open(kept.token, '8.8.8.8'), hits.open(refused.token, '8.8.8.8'), hits.open(gone.token, '8.8.8.8'), hits.click(clicked.token, 1)])
      assert.deepEqual(answers.map((a) => a.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
      assert.deepEqual([0, 2, 3].map((i) => (answers[i] as PromiseFulfilledResult<unknown>).value), [true, false, BLOG])
      assert.deepEqual(lines.map((l) => [l.msg, l.hits]), [['a batch of tracking hits failed; storing them one by one', 4]])
      assert.equal((await messageRow(t, kept.id)).country, 'US')
      assert.equal((await messageRow(t, clicked.id)).status, 4)
      assert.equal((await messageRow(t, refused.id)).openedAt, null)
      await sql.raw(dialect === 'sqlite' ? 'drop trigger refuse_hit' : 'drop trigger refuse_hit on messages').execute(t.deps.db)
    })

    it('collapses a flood of one valid token: one open, every click counted once; no write for opens already counted', async () => {
      const target = messageOf(10)
      const hits = new TrackingHits(t.deps)
      await hits.open('warm.up', '8.8.8.8')
      const before = await eventIds(t)
      const opens = await Promise.all(Array.from({ length: 50 }, () => hits.open(target.token, '8.8.8.8')))
      const clicks = await Promise.all(Array.from({ length: 30 }, () => hits.click(target.token, 0)))
      assert.ok(opens.every((o) => o === true) && clicks.every((c) => c === SHOP))
      const added = (await t.deps.db.selectFrom('events').select('action').orderBy('id').execute()).slice(before.size).map((e) => e.action)
      assert.deepEqual([added.filter((a) => a === 'open').length, added.filter((a) => a === 'redirect').length], [1, 30])
      const row = await messageRow(t, target.id)
      t.clock.advance(5000)
      try {
        assert.ok((await Promise.all(Array.from({ length: 20 }, () => hits.open(target.token, '81.2.69.160')))).every((o) => o === true))
      } finally {
        t.clock.advance(-5000)
      }
      assert.deepEqual(await messageRow(t, target.id), row, 'opens of an opened message change nothing')
    })

    it('refuses hits beyond its bound (503) and waits at close for the batches it took', async () => {
      const [first, second, third] = [11, 0, 1].map(messageOf) as [Sent['messages'][0], Sent['messages'][0], Sent['messages'][0]]
      const hits = new TrackingHits(t.deps, { maxWaiting: 2 })
      await hits.open('warm.up', '8.8.8.8')
      const release = await holdDatabase(t, dialect, first.id)
      let taken: Promise<unknown>[]
      let closing: Promise<unknown>
      try {
        taken = [hits.open(first.token, '8.8.8.8'), hits.click(second.token, 1)]
        await assert.rejects(hits.click(third.token, 1), (err: { code?: string; headers?: Record<string, string> }) => err.code === 'unavailable' && err.headers?.['retry-after'] === '1')
        let closed = false
        closing = hits.close().then(() => (closed = true))
        await tick()
        assert.equal(closed, false, 'close waits for the batch being stored')
      } finally {
        await release()
      }
      await closing
      assert.deepEqual(await Promise.all(taken), [true, BLOG])
      assert.equal((await messageRow(t, first.id)).status, 3)
    })
  })

  describe(`a tracking hit in flight at shutdown on ${dialect}`, () => {
    it('is answered and recorded before the server closes', async () => {
      const t = await startTestApp(dialect, { campaignsPerHour: 100, publicUrl: PUBLIC })
      try {
        const setup = await campaignSetup(t, 2)
        const { messages } = await sendCampaign(t, setup)
        const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
        const release = await holdDatabase(t, dialect, messages[0]!.id)
        let answered: Promise<{ status: number; bytes: number }>
        let closing: Promise<unknown>
        try {
          answered = getOnce(`${base}/t/${messages[0]!.token}/open.gif`)
          // On a loaded machine the request may not have arrived 50 ms after it was made: the close came first.
          await connected(t)
          await tick()
          let closed = false
          closing = t.app.close().then(() => (closed = true))
          await tick()
          assert.equal(closed, false, 'the server waits for the hit')
        } finally {
          await release()
        }
        await closing
        assert.deepEqual(await answered, { status: 200, bytes: 42 })
        assert.equal((await messageRow(t, messages[0]!.id)).status, 3)
      } finally {
        await t.close()
      }
    })
  })
}
