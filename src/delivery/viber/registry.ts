// Builds the Viber channel of a process: the Vonage Messages API when a provider URL is set, capture otherwise.
import type { Logger } from 'pino'
import type { Config } from '../../config/schema.js'
import { rsaPrivateKeyOf } from '../../lib/pem.js'
import { captureViberChannel } from './capture.js'
import type { ViberChannel } from './channel.js'
import { vonageChannel } from './vonage.js'

type ViberChannelConfig = Pick<Config, 'viberUrl' | 'viberToken' | 'viberApplicationId' | 'viberPrivateKey' | 'viberConcurrency' | 'viberTimeoutSeconds'>

/**
 * The one Viber channel of a process; `callbackUrl` is where the provider sends its reports
 * (`{publicUrl}/viber/callbacks/vonage`). An application (its JWT) is preferred to the account's Basic credentials.
 */
export function viberChannel(config: ViberChannelConfig, log: Logger, callbackUrl: string): ViberChannel {
  if (!config.viberUrl) return captureViberChannel()
  const application = config.viberApplicationId ? { applicationId: config.viberApplicationId, privateKey: rsaPrivateKeyOf(config.viberPrivateKey) } : undefined
  return vonageChannel({
    url: config.viberUrl,
    ...(application ? { application } : { credentials: config.viberToken }),
    webhookUrl: callbackUrl,
    concurrency: config.viberConcurrency,
    timeoutMs: config.viberTimeoutSeconds * 1000,
    log: log.child({ channel: 'vonage' }),
  })
}
