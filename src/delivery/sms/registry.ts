// Builds the SMS channel of a process: SMPP when an SMSC URL is set, capture otherwise.
import type { Logger } from 'pino'
import type { Config } from '../../config/schema.js'
import type { SmsChannel } from './channel.js'
import { captureSmsChannel } from './capture.js'
import { smppChannel } from './smpp.js'

type SmsChannelConfig = Pick<Config, 'smppUrl' | 'smppWindow' | 'smppEnquireLinkSeconds' | 'smppGsm7Packing'>

/** The one SMS channel of a process, shared by every campaign sender in it. */
export function smsChannel(config: SmsChannelConfig, log: Logger): SmsChannel {
  if (!config.smppUrl) return captureSmsChannel()
  return smppChannel({
    url: config.smppUrl,
    log: log.child({ channel: 'smpp' }),
    window: config.smppWindow,
    enquireLinkSeconds: config.smppEnquireLinkSeconds,
    gsm7Packing: config.smppGsm7Packing,
  })
}
