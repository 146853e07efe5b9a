// An account holding one object of each main kind, made through the API as a user makes them: the fuzzer's
// target (account A: objects make deeper code reachable) and its bystander (account B: must never change).
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'
import type { KnownValues } from './json-schema-arbitraries.js'
import { activeSender } from './senders.js'
import { HTML } from './campaigns.js'
import { JobRunner } from '../../src/dispatcher/jobs.js'
import * as tags from '../../src/services/audience/tags.js'
import { moderateSmsSender, registerSmsSender } from '../../src/services/sms/senders.js'

const base64 = (text: string) => Buffer.from(text).toString('base64')

/** Makes the objects; returns their ids, addresses and phones for the fuzzer to aim at. */
export async function furnishAccount(t: TestApp, account: TestAccount, label: string): Promise<KnownValues> {
  const ok = async (options: InjectOptions) => {
    const res = await t.call(account, options)
    assert.equal(res.statusCode, 200, `${options.method} ${options.url}: ${res.body}`)
    return res.json<Record<string, unknown>>()
  }
  const sender = `news@${label}.example`
  const contact = `one@${label}.example`
  const phone = label === 'a' ? '380631110001' : '380632220002'
  await activeSender(t, account, sender, 'News')
  const book = Number((await ok({ method: 'POST', url: '/addressbooks', payload: { bookName: `${label} list` } })).id)
  await ok({ method: 'POST', url: `/addressbooks/${book}/emails`, payload: { emails: [{ email: contact, variables: { name: 'One', Phone: phone } }] } })
  await ok({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: book, phones: [phone.replace(/1$|2$/, '9')] } })
  await ok({ method: 'POST', url: '/tags', payload: { name: `${label} tag`, color: '#f0f4f6' } })
  await new JobRunner(t.deps, tags.jobHandlers).runDue()
  const template = await ok({ method: 'POST', url: '/template', payload: { name: `${label} template`, body: base64(HTML) } })
  const campaign = await ok({ method: 'POST', url: '/campaigns', payload: { sender_name: 'News', sender_email: sender, subject: 'Hi {{name}}', body: base64(HTML), list_id: book, send_date: '2099-01-01 10:00:00' } })
  await ok({ method: 'POST', url: '/blacklist', payload: { emails: base64(`blocked@${label}.example`) } })
  await ok({ method: 'POST', url: '/sms/black_list', payload: { phones: ['380633330003'], description: 'asked to stop' } })
  await ok({ method: 'POST', url: '/v2/viber-service/phone-exception', payload: { phones: ['380634440004'] } })
  const webhook = await ok({ method: 'POST', url: '/v2/email-service/webhook', payload: { url: `https://hooks.${label}.example/in`, actions: ['delivered'] } })
  await moderateSmsSender(t.deps, await registerSmsSender(t.deps, account.id, `Shop${label.toUpperCase()}`), 'approve')
  const ids = [book, campaign.id, template.real_id, template.id, (webhook as { data?: { id?: unknown } }).data?.id ?? webhook.id]
  const tagRow = await t.deps.db.selectFrom('tags').select('id').where('account_id', '=', account.id).executeTakeFirst()
  return {
    integers: [...ids, tagRow?.id].map(Number).filter(Number.isSafeInteger),
    strings: [sender, contact, phone, `blocked@${label}.example`, ...[template.id, template.real_id].filter((v) => typeof v === 'string').map(String)],
  }
}
