// Builds the configured channels: SMTP when a relay URL is set, capture otherwise.
import type { Config } from '../config/schema.js'
import type { EmailChannel } from './channel.js'
import { captureChannel } from './email/capture.js'
import { smtpChannel } from './email/smtp.js'

export function emailChannel(config: Pick<Config, 'smtpUrl'>): EmailChannel {
  return config.smtpUrl ? smtpChannel({ url: config.smtpUrl }) : captureChannel()
}
