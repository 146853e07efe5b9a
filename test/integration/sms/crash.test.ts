// A `tidings worker` killed with SIGKILL half-way through an SMS campaign to a test SMSC loses nothing: after a
// second worker, every number ends delivered (by the SMSC's receipt) with one final status, every number reached
// the SMSC, numbers submitted twice stay within the batches in flight, and the ledger holds the one write-off.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { balanceMicros, smsCampaignInfo, smsSetup, type SmsSetup } from '../../helpers/sms.js'
import { startSmsc, type Smsc } from '../../helpers/smsc.js'
import { assertCountsMatchRows } from '../../helpers/campaign-counts.js'
import { CLI } from '../../helpers/cli.js'

const PRICES = 'default=0.01'
/** 0.01 a number in micro-units. */
const PRICE_MICROS = 10_000
/**
 * The SMS sender's messages in flight (dispatcher/sms-sender.ts: 2 batches of 200), the most a crash may
 * submit twice. The campaign is 1,000 numbers and the worker is killed once 550 reached the SMSC, so a restart
 * that sent everything again (550 duplicates) would break the bound.
 */
const IN_FLIGHT = 400
const NUMBERS = Array.from({ length: 1000 }, (_, i) => String(447400000000 + i))
const KILL_AT = 550

for (const dialect of DIALECTS) {
  describe(`a worker killed mid-SMS-campaign on ${dialect}`, () => {
    let t: TestApp
    let smsc: Smsc
    let setup: SmsSetup
    before(async () => {
      t = await startTestApp(dialect, { smsPrices: PRICES })
      smsc = await startSmsc()
      setup = await smsSetup(t)
    })
    after(async () => {
      await smsc.close()
      await t.close()
    })

    const startWorker = (): ChildProcess =>
      spawn(process.execPath, [...CLI, 'worker'], {
        env: {
          ...process.env,
          DATABASE_URL: t.database.url,
          LOG_LEVEL: 'error',
          TIDINGS_SMPP_URL: smsc.url,
          TIDINGS_SMPP_WINDOW: '5',
          TIDINGS_SEND_LEASE: '2',
          TIDINGS_SMS_PRICES: PRICES,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
    const statusesOf = async (id: number) => (await smsCampaignInfo(t, setup.account, id)).task_phones_info.map((n) => n.status)

    it('resumes after SIGKILL and restart: one final status per number, each reached the SMSC, the ledger adds up', async (test) => {
      const balance = await balanceMicros(t, setup.account)
      const created = await t.call(setup.account, { method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: 'Sale today', phones: NUMBERS } })
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json<{ campaign_id: number }>().campaign_id
      // 5 submits waiting 10 ms each: about 500 a second at most, so the kill lands mid-campaign.
      smsc.respondDelayMs = 10

      const first = startWorker()
      const killed = new Promise((resolve) => first.on('close', resolve))
      for (let i = 0; i < 600 && smsc.submitCount < KILL_AT; i++) await sleep(20)
      first.kill('SIGKILL')
      await killed
      const atKill = smsc.submitCount
      assert.ok(atKill >= KILL_AT && atKill < NUMBERS.length, `killed half-way (${atKill} submitted)`)

      smsc.respondDelayMs = 0
      const second = startWorker()
      const stopped = new Promise((resolve) => second.on('close', resolve))
      try {
        for (let i = 0; i < 300 && !(await statusesOf(id)).every((s) => s === 2); i++) await sleep(100)
      } finally {
        second.kill('SIGTERM')
        await stopped
      }

      const numbers = (await smsCampaignInfo(t, setup.account, id)).task_phones_info
      assert.equal(numbers.length, NUMBERS.length, 'one row per number, none lost or added')
      assert.deepEqual([...new Set(numbers.map((n) => String(n.phone)))].sort(), NUMBERS)
      assert.deepEqual([...new Set(numbers.map((n) => n.status))], [2], 'every number delivered, by its receipt')
      const rows = await t.deps.db.selectFrom('messages').select(['status', 'queued']).where('campaign_id', '=', id).execute()
      assert.deepEqual([...new Set(rows.map((r) => `${r.status}/${r.queued}`))], ['2/0'], 'none still queued')

      const accepted = new Map<string, number>()
      for (const s of smsc.submits) if (s.status === 0) accepted.set(s.destination, (accepted.get(s.destination) ?? 0) + 1)
      assert.deepEqual([...accepted.keys()].sort(), NUMBERS, 'every number reached the SMSC')
      const duplicates = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0)
      test.diagnostic(`${atKill} submitted at the kill, ${duplicates} numbers submitted twice`)
      assert.ok(duplicates <= IN_FLIGHT, `duplicates within the batches in flight (${duplicates})`)

      const ledger = await t.deps.db.selectFrom('ledger_entries').select(['kind', 'amount_micros']).where('account_id', '=', setup.account.id).where('kind', '!=', 'credit').execute()
      assert.deepEqual(ledger.map((e) => [e.kind, Number(e.amount_micros)]), [['write_off', -NUMBERS.length * PRICE_MICROS]], 'one write-off of what the numbers cost, nothing refunded')
      assert.equal(balance - (await balanceMicros(t, setup.account)), NUMBERS.length * PRICE_MICROS)
      const campaign = await t.deps.db.selectFrom('campaigns').select(['status', 'charged_micros']).where('id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([campaign.status, Number(campaign.charged_micros)], [3, NUMBERS.length * PRICE_MICROS], 'the campaign ended, charged in full')
      await assertCountsMatchRows(t.deps.db, 'the campaign counts survived the kill: equal to a recount of the messages')
    })
  })
}
