// Viber test set-ups: an account with a verified sender name, an approved system-message template and an active
// SMS sender (for resend_sms), the Viber sender of one process driven by hand, and reading a campaign back.
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'
import { moderateViberSender, registerViberSender } from '../../src/services/viber/senders.js'
import { approveViberTemplate, registerViberTemplate } from '../../src/services/viber/templates.js'
import { viberSender } from '../../src/dispatcher/viber-sender.js'
import type { ViberChannel } from '../../src/delivery/viber/channel.js'
import { smsSetup } from './sms.js'

export const SYSTEM_TEXT = 'Your order 42 has shipped'

export interface ViberSetup {
  account: TestAccount
  senderId: number
  smsSender: string
}

/** An account (balance 100) with the verified sender name `Shop`, the approved template SYSTEM_TEXT and the active SMS sender `Shop`. */
export async function viberSetup(t: TestApp): Promise<ViberSetup> {
  const { account, sender: smsSender } = await smsSetup(t)
  const senderId = await registerViberSender(t.deps, account.id, { name: 'Shop', country: 'GB' })
  await moderateViberSender(t.deps, senderId, 'verify')
  await approveViberTemplate(t.deps, await registerViberTemplate(t.deps, account.id, SYSTEM_TEXT))
  return { account, senderId, smsSender }
}

/** The Viber sender of one process, run round by round until nothing is due at the test clock's time. */
export function viberDispatcher(t: TestApp, channel: ViberChannel, options: { batchSize?: number; maxAttempts?: number } = {}) {
  const viber = viberSender(t.deps, channel, options)
  return {
    async drain(): Promise<number> {
      let sent = 0
      for (;;) {
        const claimed = await viber.sender.sendDue()
        sent += claimed
        if (claimed === 0) return sent
      }
    },
  }
}

export interface ViberRecipient {
  phone: number
  address_book_id: number | null
  status: string | null
  send_date: string | null
  price: number
  currency: string
}

export async function viberRecipients(t: TestApp, account: TestAccount, id: number): Promise<ViberRecipient[]> {
  const answer = await t.call(account, { method: 'GET', url: `/viber/task/${id}/recipients` })
  if (answer.statusCode !== 200) throw new Error(`recipients of ${id}: ${answer.statusCode} ${answer.body}`)
  return answer.json<{ recipients: ViberRecipient[] }>().recipients
}

export interface ViberStatistics {
  status: string
  resend_sms: boolean
  resend_sms_status: number | null
  resend_sms_statistic: { total: number; queued: number; sent: number; delivered: number; undelivered: number } | null
  statistic: { sent: number; delivered: number; read: number; redirected: number; undelivered: number; errors: number }
}

export async function viberStatistics(t: TestApp, account: TestAccount, id: number): Promise<ViberStatistics> {
  const answer = await t.call(account, { method: 'GET', url: `/viber/task/${id}` })
  if (answer.statusCode !== 200) throw new Error(`statistics of ${id}: ${answer.statusCode} ${answer.body}`)
  return answer.json<ViberStatistics>()
}
