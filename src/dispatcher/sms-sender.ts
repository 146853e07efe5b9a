// The SMS campaign sender and the receipts of its channel: one process's SMS work on the one dispatcher.
import type { Deps } from '../services/types.js'
import type { SmsChannel } from '../delivery/sms/channel.js'
import { recordReceipts } from '../storage/repos/sms-parts.js'
import { MessageSender, type MessageSenderOptions } from './message-sender.js'
import { smsDriver } from './sms-driver.js'

export type SmsSenderOptions = Omit<MessageSenderOptions, 'ratePerSecond' | 'accountRatePerSecond'>

/**
 * Sends SMS campaign messages through `channel` and stores every receipt it reports before the channel
 * acknowledges it to the SMSC (a failure here makes the SMSC send it again). Batches of 200, two in flight:
 * enough to keep a window of 100 submits busy while the next batch is claimed.
 */
export function smsSender(deps: Deps, channel: SmsChannel, options: SmsSenderOptions = {}) {
  channel.onReceipt(async (receipts) => {
    const matched = await deps.db.transaction().execute((tx) => recordReceipts(tx, receipts, deps.now()))
    if (matched < receipts.length) deps.log.debug({ unmatched: receipts.length - matched }, 'receipts stored before their submit was recorded')
  })
  return new MessageSender(deps, smsDriver(channel), { batchSize: 200, parallelBatches: 2, ...options, ratePerSecond: deps.config.smsRatePerSecond, accountRatePerSecond: deps.config.smsAccountRatePerSecond })
}
