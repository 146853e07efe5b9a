// A `tidings worker` killed with SIGKILL half-way through a Viber campaign with resend_sms, sending through a Vonage
// stand-in whose signed callbacks reach the API over HTTP, loses nothing and doubles nothing it must not: after a
// second worker, every recipient has one final status (delivered, or undelivered with exactly one SMS instead),
// requests sent twice stay within the batches in flight at the kill, and the ledger holds what was paid. Its 100
// undelivered callbacks at once are also what deadlocked on PostgreSQL (repos/campaigns.ts, lockCampaignBesideKeyShares).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { balanceMicros } from '../../helpers/sms.js'
import { startVonage, type VonageStandIn } from '../../helpers/vonage.js'
import { viberSetup, type ViberSetup } from '../../helpers/viber.js'
import { MESSAGE_STATUS } from '../../../src/storage/repos/messages.js'
import { assertCountsMatchRows } from '../../helpers/campaign-counts.js'
import { CLI } from '../../helpers/cli.js'

const VIBER_PRICES = 'default=0.02,GB=0.01'
const SMS_PRICES = 'default=0.02'
/** A Viber message to a GB number (0.01) and a one-part SMS (0.02), in micro-units. */
const GB_VIBER = 10_000
const SMS_PART = 20_000
/**
 * The Viber sender's messages in flight (dispatcher/viber-sender.ts: 2 batches of 200), the most a crash may send
 * twice. The campaign is 1,000 numbers and the worker is killed once 550 reached the stand-in, so a restart that
 * sent everything again (550 duplicates) would break the bound.
 */
const IN_FLIGHT = 400
const NUMBERS = Array.from({ length: 1000 }, (_, i) => String(447400000000 + i))
const KILL_AT = 550
/** Every tenth number is not on Viber: 100 SMS instead. */
const UNDELIVERABLE = NUMBERS.filter((_, i) => i % 10 === 7)
const FINAL_SMS: readonly number[] = [MESSAGE_STATUS.sent, MESSAGE_STATUS.delivered]

interface Row {
  id: number
  address: string
  channel: string
  status: number
  queued: number
  locked_until: number | null
  fallback_of: number | null
}

for (const dialect of DIALECTS) {
  describe(`a worker killed mid-Viber-campaign on ${dialect}`, () => {
    let t: TestApp
    let a: ViberSetup
    let vonage: VonageStandIn
    let apiUrl: string
    let realTime: NodeJS.Timeout
    const workers = new Set<ChildProcess>()

    before(async () => {
      vonage = await startVonage()
      for (const phone of UNDELIVERABLE) vonage.outcomes.set(phone, ['undeliverable'])
      t = await startTestApp(dialect, { viberPrices: VIBER_PRICES, smsPrices: SMS_PRICES, viberToken: vonage.credentials, viberSignatureSecret: vonage.signatureSecret })
      // The API takes the callbacks; its clock follows the real one, at which the stand-in signs them (a token
      // issued more than 60 s after a frozen clock would be refused as from the future).
      realTime = setInterval(() => void (t.clock.now = Date.now()), 100)
      apiUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
      a = await viberSetup(t)
    })
    after(async () => {
      // A test that failed half-way leaves no worker behind.
      for (const worker of workers) worker.kill('SIGKILL')
      clearInterval(realTime)
      await vonage.close()
      await t.close()
    })

    const startWorker = (): ChildProcess => {
      const worker = spawn(process.execPath, [...CLI, 'worker'], {
        env: {
          ...process.env,
          DATABASE_URL: t.database.url,
          LOG_LEVEL: 'error',
          TIDINGS_PUBLIC_URL: apiUrl,
          TIDINGS_VIBER_URL: vonage.url,
          TIDINGS_VIBER_TOKEN: vonage.credentials,
          TIDINGS_VIBER_SIGNATURE_SECRET: vonage.signatureSecret,
          TIDINGS_VIBER_PRICES: VIBER_PRICES,
          // The SMS instead is priced by whichever process ends the Viber message: the API on a callback, the
          // worker when it records a send whose callback came first.
          TIDINGS_SMS_PRICES: SMS_PRICES,
          TIDINGS_SEND_LEASE: '2',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      workers.add(worker)
      worker.on('close', () => workers.delete(worker))
      return worker
    }
    /** Stops a worker as an operator would, killing it if it does not stop within 10 s. */
    const stopWorker = async (worker: ChildProcess, stopped: Promise<unknown>) => {
      worker.kill('SIGTERM')
      const killLater = setTimeout(() => worker.kill('SIGKILL'), 10_000)
      await stopped
      clearTimeout(killLater)
    }
    const rowsOf = (id: number): Promise<Row[]> =>
      t.deps.db.selectFrom('messages').select(['id', 'address', 'channel', 'status', 'queued', 'locked_until', 'fallback_of']).where('campaign_id', '=', id).orderBy('id').execute() as Promise<Row[]>
    /** Every Viber message has its report applied, each undelivered one has its SMS, and no SMS is still to send. */
    const done = async (id: number) => {
      const rows = await rowsOf(id)
      const viber = rows.filter((r) => r.channel === 'viber')
      const sms = rows.filter((r) => r.channel === 'sms')
      const ended = viber.every((r) => r.status === MESSAGE_STATUS.delivered || r.status === MESSAGE_STATUS.unavailable)
      const undelivered = viber.filter((r) => r.status !== MESSAGE_STATUS.delivered)
      return ended && sms.length >= undelivered.length && sms.every((r) => FINAL_SMS.includes(r.status) && r.queued === 0)
    }

    it('resumes after SIGKILL and restart: one final status per recipient, one SMS per undelivered, sends twice only in flight, the ledger adds up', async (test) => {
      const balance = await balanceMicros(t, a.account)
      const created = await t.call(a.account, {
        method: 'POST',
        url: '/viber',
        payload: {
          task_name: 'Sale',
          message_type: 2,
          sender_id: a.senderId,
          message_live_time: 3600,
          send_date: 'now',
          message: 'Sale today',
          recipients: NUMBERS.map(Number),
          additional: { resend_sms: { status: true, sms_text: 'Sale today: shop.example', sms_sender_name: 'Shop' } },
        },
      })
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json<{ data: { task_id: number } }>().data.task_id
      // 20 requests in flight (TIDINGS_VIBER_CONCURRENCY) answered after 40 ms: 500 a second at most, so the kill
      // lands mid-campaign.
      vonage.respondDelayMs = 40

      const first = startWorker()
      const killed = new Promise((resolve) => first.on('close', resolve))
      for (let i = 0; i < 1500 && vonage.requestCount < KILL_AT; i++) await sleep(20)
      first.kill('SIGKILL')
      await killed
      const atKill = vonage.requestCount
      assert.ok(atKill >= KILL_AT && atKill < NUMBERS.length, `killed half-way (${atKill} requests)`)

      vonage.respondDelayMs = 0
      const second = startWorker()
      const stopped = new Promise((resolve) => second.on('close', resolve))
      try {
        for (const deadline = Date.now() + 30_000; Date.now() < deadline && !(await done(id)); ) await sleep(100)
        // Each request got one status callback: all of them taken before the end is judged.
        await vonage.waitForCallbacks(vonage.accepted, 20_000)
      } finally {
        await stopWorker(second, stopped)
      }

      const rows = await rowsOf(id)
      const viber = rows.filter((r) => r.channel === 'viber')
      const sms = rows.filter((r) => r.channel === 'sms')
      assert.deepEqual(viber.map((r) => r.address), NUMBERS, 'one Viber message per number, none lost or added')
      const undeliverable = new Set(UNDELIVERABLE)
      const wrong = viber.filter((r) => r.status !== (undeliverable.has(r.address) ? MESSAGE_STATUS.unavailable : MESSAGE_STATUS.delivered))
      assert.deepEqual(wrong.map((r) => [r.address, r.status]), [], 'each number ended as the stand-in reported it')
      assert.deepEqual(rows.filter((r) => r.queued !== 0 || r.locked_until !== null).map((r) => [r.channel, r.address, r.status]), [], 'none still queued or leased')

      const undelivered = viber.filter((r) => r.status === MESSAGE_STATUS.unavailable)
      assert.deepEqual(
        sms.map((r) => [r.fallback_of, r.address]).sort(),
        undelivered.map((r) => [r.id, r.address]).sort(),
        'exactly one SMS instead per undelivered number, none for the delivered',
      )
      assert.deepEqual(sms.filter((r) => !FINAL_SMS.includes(r.status)).map((r) => [r.address, r.status]), [], 'every SMS instead was sent')

      // client_ref is the message id (delivery/viber/vonage-request.ts).
      const accepted = new Map<string, number>()
      for (const r of vonage.requests) if (r.status === 202) accepted.set(String(r.body?.client_ref), (accepted.get(String(r.body?.client_ref)) ?? 0) + 1)
      assert.deepEqual([...accepted.keys()].sort(), viber.map((r) => String(r.id)).sort(), 'every message reached the stand-in')
      const duplicates = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0)
      const refusals = vonage.callbacks.flatMap((c) => c.answers.filter((s) => s < 200 || s >= 300))
      test.diagnostic(`${atKill} requests at the kill, ${duplicates} messages sent twice, callback attempts refused: ${JSON.stringify(countBy(refusals))}`)
      assert.ok(duplicates <= IN_FLIGHT, `sent twice only within the batches in flight (${duplicates})`)
      assert.deepEqual(vonage.refusedCallbacks().filter((c) => !c.answers.some((s) => s >= 200 && s < 300)), [], 'every callback taken in the end')

      // Paid: the Viber messages not ended as errors (given back) and the SMS instead.
      const paidViber = viber.filter((r) => r.status !== MESSAGE_STATUS.notSent).length
      assert.equal(balance - (await balanceMicros(t, a.account)), paidViber * GB_VIBER + sms.length * SMS_PART)
      const campaign = await t.deps.db.selectFrom('campaigns').select(['status', 'charged_micros']).where('id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([campaign.status, Number(campaign.charged_micros)], [3, paidViber * GB_VIBER + sms.length * SMS_PART], 'the campaign ended, charged what was paid')
      await assertCountsMatchRows(t.deps.db, 'the campaign counts survived the kill: equal to a recount of the messages')
    })
  })
}

function countBy(values: readonly number[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}
