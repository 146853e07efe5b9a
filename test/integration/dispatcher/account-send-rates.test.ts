// Per-account send rates (TIDINGS_EMAIL_ACCOUNT_RATE) and the channel's rate over them (TIDINGS_EMAIL_RATE), held
// through the database's buckets (issue 20, item 3; docs/decisions/0007). The dispatcher runs round by round on the
// test clock, 100 ms at a time, so the counts are exact rather than timed: two accounts at an account rate of R each
// send R a second (plus the bucket's one second's worth at the start), and a channel rate below 2 × R caps their sum
// and shares it between them. Last, a worker's pollers on the real clock: an account at its rate sends at that rate,
// not at a pace set by the poll interval (80 % of it: 2 pollers × a tenth of a second's worth every 250 ms).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { emailSender } from '../../../src/dispatcher/email-driver.js'
import type { Config } from '../../../src/config/schema.js'

const ACCOUNT_RATE = 20
const RECIPIENTS = 300
const SECONDS = 3
const STEP_MS = 100
/** Rounds run at each step of the clock, at most: more than the rates let through. */
const ROUNDS_PER_STEP = 5

/** Runs two accounts' campaigns for SECONDS of the test clock and returns how many each sent. */
async function sentInWindow(dialect: (typeof DIALECTS)[number], rates: Partial<Config>): Promise<{ sent: number[]; t: TestApp }> {
  const t = await startTestApp(dialect, { campaignsPerHour: 100, emailPrice: 0, ...rates })
  const setups = [await campaignSetup(t, RECIPIENTS), await campaignSetup(t, RECIPIENTS)]
  const ids: number[] = []
  for (const setup of setups) {
    const created = await createCampaign(t, setup)
    assert.equal(created.statusCode, 200, created.body)
    ids.push(created.json<{ id: number }>().id)
  }
  const { jobs, sender } = dispatcher(t, captureChannel())
  while ((await jobs.runDue()) > 0);
  for (let step = 0; step < (SECONDS * 1000) / STEP_MS; step++) {
    for (let round = 0; round < ROUNDS_PER_STEP && (await sender.sendDue()) > 0; round++);
    t.clock.advance(STEP_MS)
  }
  const sent: number[] = []
  for (const id of ids) {
    const row = await t.deps.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', id).where('queued', '=', 0).executeTakeFirstOrThrow()
    sent.push(Number(row.n))
  }
  return { sent, t }
}

for (const dialect of DIALECTS) {
  describe(`send rates per account on ${dialect}`, () => {
    const apps: TestApp[] = []
    after(() => Promise.all(apps.map((t) => t.close())))

    it('gives each account its own rate, whichever sends more', async (test) => {
      const { sent, t } = await sentInWindow(dialect, { emailAccountRatePerSecond: ACCOUNT_RATE })
      apps.push(t)
      test.diagnostic(`sent ${sent.join(' and ')} in ${SECONDS} s at ${ACCOUNT_RATE}/s per account`)
      // R × seconds, plus the bucket's second's worth at the start and a tenth of a second's chunk in hand.
      for (const count of sent) assert.ok(count >= ACCOUNT_RATE * SECONDS && count <= ACCOUNT_RATE * (SECONDS + 1) + ACCOUNT_RATE / 10, `sent ${count}`)
    })

    it('caps the accounts together at the channel rate, shared between them', async (test) => {
      const channelRate = 30
      const { sent, t } = await sentInWindow(dialect, { emailAccountRatePerSecond: ACCOUNT_RATE, emailRatePerSecond: channelRate })
      apps.push(t)
      test.diagnostic(`sent ${sent.join(' and ')} in ${SECONDS} s at ${channelRate}/s for the channel`)
      const sum = sent[0]! + sent[1]!
      assert.ok(sum >= channelRate * SECONDS && sum <= channelRate * (SECONDS + 1) + channelRate / 10, `sent ${sum} in all`)
      for (const count of sent) assert.ok(Math.abs(count - sum / 2) <= sum / 10, `each account had half: ${sent.join(' and ')}`)
    })

    it("keeps an account at its rate with a worker's pollers", async (test) => {
      const rate = 40
      const t = await startTestApp(dialect, { emailPrice: 0, emailAccountRatePerSecond: rate })
      apps.push(t)
      const setup = await campaignSetup(t, 400)
      assert.equal((await createCampaign(t, setup)).statusCode, 200)
      const { jobs } = dispatcher(t, captureChannel())
      while ((await jobs.runDue()) > 0);
      const realClock = { ...t.deps, now: () => Date.now() }
      const senders = [emailSender(realClock, captureChannel())]
      const sentAt = async () => (await t.deps.db.selectFrom('messages').select('sent_at').where('sent_at', 'is not', null).execute()).map((m) => Number(m.sent_at))
      for (const sender of senders) sender.start()
      try {
        for (let i = 0; i < 100 && (await sentAt()).length === 0; i++) await sleep(50)
        // After the first second's burst: 3 s at the rate.
        await sleep(4800)
      } finally {
        await Promise.all(senders.map((sender) => sender.stop()))
      }
      const times = await sentAt()
      const from = Math.min(...times) + 1500
      const measured = times.filter((at) => at >= from && at < from + 3000).length / 3
      test.diagnostic(`${measured}/s at an account rate of ${rate}/s (${times.length} sent in all)`)
      assert.ok(Math.abs(measured - rate) <= rate * 0.1, `${measured}/s at an account rate of ${rate}/s`)
    })
  })
}
