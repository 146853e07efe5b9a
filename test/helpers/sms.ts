// SMS test set-ups: an account with an active sender ID, and the SMS sender of one process driven by hand.
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'
import { moderateSmsSender, registerSmsSender } from '../../src/services/sms/senders.js'
import { smsSender } from '../../src/dispatcher/sms-sender.js'
import { pino } from 'pino'
import type { SmsChannel } from '../../src/delivery/sms/channel.js'
import { smppChannel } from '../../src/delivery/sms/smpp.js'
import { sumBalanceMicros } from '../../src/storage/repos/accounts.js'

export interface SmsSetup {
  account: TestAccount
  sender: string
}

/** An account (balance 100) whose sender ID `Shop` the operator approved. */
export async function smsSetup(t: TestApp, sender = 'Shop'): Promise<SmsSetup> {
  const account = await t.account()
  const id = await registerSmsSender(t.deps, account.id, sender)
  await moderateSmsSender(t.deps, id, 'approve')
  return { account, sender }
}

/** The SMS sender of one process, run round by round until nothing is due. */
export function smsDispatcher(t: TestApp, channel: SmsChannel, options: { batchSize?: number; maxAttempts?: number } = {}) {
  const sender = smsSender(t.deps, channel, options)
  return {
    sender,
    async drain(): Promise<number> {
      let sent = 0
      for (;;) {
        const claimed = await sender.sendDue()
        sent += claimed
        if (claimed === 0) return sent
      }
    },
  }
}

/** The account's balance in micro-units, from its ledger. */
export async function balanceMicros(t: TestApp, account: TestAccount): Promise<number> {
  return sumBalanceMicros(t.deps.db, account.id)
}

/** Polls `condition` every 20 ms for up to 10 s (other suites share the machine); the caller asserts after. */
export async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 20))
}

export interface NumberInfo {
  phone: number
  status: number
  status_explain: string
  сountry_code: string
  country_code: string
  money_spent: number
}

export interface SmsCampaignInfo {
  id: number
  address_book_id: number
  currency: string
  company_price: number
  send_date: string
  date_created: string
  sender_name: string
  task_phones_info: NumberInfo[]
}

export async function smsCampaignInfo(t: TestApp, account: TestAccount, id: number): Promise<SmsCampaignInfo> {
  const answer = await t.call(account, { method: 'GET', url: `/sms/campaigns/info/${id}` })
  if (answer.statusCode !== 200) throw new Error(`info of ${id}: ${answer.statusCode} ${answer.body}`)
  return answer.json<{ result: boolean; data: SmsCampaignInfo }>().data
}

/** An SMPP channel bound to a test SMSC, reconnecting and slowing down in milliseconds rather than seconds. */
export function testSmppChannel(smsc: { url: string }): SmsChannel {
  return smppChannel({ url: smsc.url, log: pino({ level: 'silent' }), window: 10, reconnectMs: { first: 50, max: 200 }, slowDownMs: { first: 50, max: 100 } })
}
