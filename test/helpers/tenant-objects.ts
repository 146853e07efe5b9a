// One object of every kind an account can own, made through the API (and the operator's services where only
// the operator can make it): for tests that point one account's calls at another's objects.
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'
import { activeSender } from './senders.js'
import { JobRunner } from '../../src/dispatcher/jobs.js'
import * as tags from '../../src/services/audience/tags.js'
import { moderateSmsSender, registerSmsSender } from '../../src/services/sms/senders.js'
import { moderateViberSender, registerViberSender } from '../../src/services/viber/senders.js'
import { toWireDate } from '../../src/lib/wire-date.js'

export interface TenantObjects {
  account: TestAccount
  list: number
  /** A contact of `list`, with the variable `city` = `cityValue` and the phone `phone`. */
  contact: string
  phone: number
  cityValue: string
  template: number
  templateSlug: string
  /** An active email sender. */
  sender: string
  smsSender: string
  viberSender: number
  tag: number
  webhook: number
  /** Scheduled an hour ahead, so each can still be edited, cancelled or deleted. */
  campaign: number
  smsCampaign: number
  viberCampaign: number
  /** A service email of the outbox (the sender's activation code). */
  outboxEmail: number
}

const HOUR = 3_600_000

/** Every object of `account`, named after the account so that no two accounts share a name, address or number. */
export async function createTenantObjects(t: TestApp, account: TestAccount): Promise<TenantObjects> {
  const ok = async (options: InjectOptions) => {
    const answer = await t.call(account, options)
    assert.equal(answer.statusCode, 200, `${options.method} ${options.url}: ${answer.body}`)
    return answer.json<Record<string, unknown>>()
  }
  const n = account.id
  const later = toWireDate(t.clock.now + HOUR)
  const contact = `reader@a${n}.example`
  const phone = 380630000000 + n
  const cityValue = `City ${n}`

  const list = (await ok({ method: 'POST', url: '/addressbooks', payload: { bookName: `List of ${n}` } })).id as number
  await ok({ method: 'POST', url: `/addressbooks/${list}/emails`, payload: { emails: [{ email: contact, variables: { city: cityValue, Phone: String(phone) } }] } })
  await ok({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: list, phones: [phone + 1000] } })

  const html = Buffer.from(`<p>Offer of ${n}</p>`).toString('base64')
  const created = await ok({ method: 'POST', url: '/template', payload: { name: `Offer of ${n}`, body: html } })
  const template = (created.real_id ?? created.id) as number
  const templateSlug = (await ok({ method: 'GET', url: `/template/${template}` })).name_slug as string

  const sender = `news@a${n}.example`
  await activeSender(t, account, sender, 'News')
  const outboxEmail = Number((await t.deps.db.selectFrom('outbox').select('id').where('account_id', '=', account.id).executeTakeFirstOrThrow()).id)
  const smsSender = `Shop${n}`
  await moderateSmsSender(t.deps, await registerSmsSender(t.deps, account.id, smsSender), 'approve')
  const viberSender = await registerViberSender(t.deps, account.id, { name: `Shop ${n}`, country: 'GB' })
  await moderateViberSender(t.deps, viberSender, 'verify')

  await ok({ method: 'POST', url: '/tags', payload: { name: `Tag of ${n}`, color: '#336699' } })
  await new JobRunner(t.deps, tags.jobHandlers).runDue()
  const tag = ((await ok({ method: 'GET', url: '/tags' })).tags as { id: number }[])[0]!.id
  const webhook = ((await ok({ method: 'POST', url: '/v2/email-service/webhook', payload: { url: `https://hooks.example/${n}`, actions: ['open'] } })).data as { id: number }[])[0]!.id

  const campaign = (await ok({ method: 'POST', url: '/campaigns', payload: { sender_name: 'News', sender_email: sender, subject: 'Hi', body: html, list_id: list, send_date: later } })).id as number
  const smsCampaign = (await ok({ method: 'POST', url: '/sms/campaigns', payload: { sender: smsSender, body: 'Sale', addressBookId: list, date: later } })).campaign_id as number
  const viber = await ok({
    method: 'POST',
    url: '/viber',
    payload: { task_name: 'Sale', message_type: 2, sender_id: viberSender, message_live_time: 3600, send_date: later, address_book: list, message: 'Sale today' },
  })
  const viberCampaign = (viber.data as { task_id: number }).task_id

  // Blacklisted addresses and numbers: rows no call of another account may touch either.
  await ok({ method: 'POST', url: '/blacklist', payload: { emails: Buffer.from(`banned@a${n}.example`).toString('base64') } })
  await ok({ method: 'POST', url: '/sms/black_list', payload: { phones: [phone + 2000] } })
  await ok({ method: 'POST', url: '/v2/viber-service/phone-exception', payload: { phones: [phone + 3000] } })

  for (const [what, id] of Object.entries({ template, tag, webhook, campaign, smsCampaign, viberCampaign })) assert.ok(Number.isInteger(id), `${what} id: ${id}`)
  return { account, list, contact, phone, cityValue, template, templateSlug, sender, smsSender, viberSender, tag, webhook, campaign, smsCampaign, viberCampaign, outboxEmail }
}
