// Builds the configured channels: SMTP when a relay URL is set, capture otherwise.
import type { Config } from '../config/schema.js'
import { pemTextOf } from '../lib/pem.js'
import type { EmailChannel } from './channel.js'
import { captureChannel } from './email/capture.js'
import { smtpChannel } from './email/smtp.js'

type ChannelConfig = Pick<Config, 'smtpUrl' | 'smtpInsecure' | 'dkimDomain' | 'dkimSelector' | 'dkimPrivateKey'>

/** The one email channel of a process, shared by the outbox of service emails and the campaign sender. */
export function emailChannel(config: ChannelConfig): EmailChannel {
  return config.smtpUrl ? smtpChannel({ url: config.smtpUrl, dkim: dkimOf(config), allowPlaintextAuth: config.smtpInsecure }) : captureChannel()
}

/** The DKIM signing settings, when a domain is configured; the key may be PEM text or a file's path. */
function dkimOf(config: ChannelConfig) {
  if (!config.dkimDomain) return undefined
  if (!config.dkimPrivateKey) throw new Error('TIDINGS_DKIM_PRIVATE_KEY (PEM text or a file path) is required with TIDINGS_DKIM_DOMAIN')
  return { domainName: config.dkimDomain, keySelector: config.dkimSelector, privateKey: pemTextOf(config.dkimPrivateKey) }
}
