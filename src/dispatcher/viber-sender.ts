// The Viber campaign sender of one process on the one dispatcher: sends through `channel`, applies the reports the
// capture channel simulates (a provider's come in through the API's signed callback route instead), and ends
// messages whose live time passed undelivered, each with its SMS instead when the campaign asked for one.
import type { Deps } from '../services/types.js'
import type { ViberChannel } from '../delivery/viber/channel.js'
import { expireViberMessages, recordViberReport } from '../services/viber/reports.js'
import { MessageSender, type MessageSenderOptions } from './message-sender.js'
import { Poller } from './poller.js'
import { viberDriver } from './viber-driver.js'

export type ViberSenderOptions = Omit<MessageSenderOptions, 'ratePerSecond' | 'accountRatePerSecond'> & { expiryPollMs?: number }

/** Live times that ended are looked for once a second: a fallback SMS leaves at most a second late. */
const EXPIRY_POLL_MS = 1000
const EXPIRED_PER_ROUND = 500

export function viberSender(deps: Deps, channel: ViberChannel, options: ViberSenderOptions = {}) {
  channel.onReport(async (reports) => {
    for (const report of reports) await recordViberReport(deps, report)
  })
  const log = deps.log.child({ component: 'viber campaigns' })
  // Batches of 200, two in flight: the provider takes one recipient per request, viberConcurrency at once.
  const sender = new MessageSender(deps, viberDriver(deps, channel), { batchSize: 200, parallelBatches: 2, ...options, ratePerSecond: deps.config.viberRatePerSecond, accountRatePerSecond: deps.config.viberAccountRatePerSecond })
  const expiry = new Poller(() => expireViberMessages(deps, EXPIRED_PER_ROUND), { pollMs: options.expiryPollMs ?? EXPIRY_POLL_MS, full: EXPIRED_PER_ROUND, log, what: 'ending expired Viber messages' })
  return {
    sender,
    start(): void {
      sender.start()
      expiry.start()
    },
    async stop(): Promise<void> {
      await Promise.all([sender.stop(), expiry.stop()])
    },
  }
}
