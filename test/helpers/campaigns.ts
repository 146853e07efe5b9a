// Campaign test set-ups built through the API: an account with an active sender and a list of contacts with
// variables, and a dispatcher (job runner + campaign sender) driven round by round.
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'
import { activeSender } from './senders.js'
import { JobRunner } from '../../src/dispatcher/jobs.js'
import { emailSender, type EmailSenderOptions } from '../../src/dispatcher/email-driver.js'
import { campaignJobHandlers } from '../../src/services/email/campaign-lifecycle.js'
import type { EmailChannel } from '../../src/delivery/channel.js'

export interface CampaignSetup {
  account: TestAccount
  bookId: number
  sender: string
  emails: string[]
}

let lists = 0

/** An account with an active sender and a list of `contacts` addresses, each with a `name` variable. */
export async function campaignSetup(t: TestApp, contacts: number, domain = 'example.com'): Promise<CampaignSetup> {
  const account = await t.account()
  const sender = `news${account.id}@sender.example`
  await activeSender(t, account, sender, 'News')
  const book = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: `list ${++lists}` } })
  assert.equal(book.statusCode, 200, book.body)
  const bookId = book.json<{ id: number }>().id
  const emails = Array.from({ length: contacts }, (_, i) => `reader${i}.a${account.id}@${domain}`)
  for (let i = 0; i < emails.length; i += 500) {
    const chunk = emails.slice(i, i + 500).map((email, j) => ({ email, variables: { name: `Reader ${i + j}` } }))
    const added = await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails`, payload: { emails: chunk } })
    assert.equal(added.statusCode, 200, added.body)
  }
  return { account, bookId, sender, emails }
}

export const HTML = '<html><body><h1>Hello {{name}}</h1><p>News for {{email}}.</p><p><a href="https://shop.example/sale?x=1">Sale</a> <a href="https://blog.example/">Blog</a></p></body></html>'

export async function createCampaign(t: TestApp, setup: CampaignSetup, fields: Record<string, unknown> = {}) {
  return t.call(setup.account, {
    method: 'POST',
    url: '/campaigns',
    payload: { sender_name: 'News', sender_email: setup.sender, subject: 'Hi {{name}}', body: Buffer.from(HTML).toString('base64'), list_id: setup.bookId, ...fields },
  })
}

/** The dispatcher of one process, run by hand: copy recipients, then send until nothing is due. */
export function dispatcher(t: TestApp, channel: EmailChannel, options: EmailSenderOptions = {}) {
  const jobs = new JobRunner(t.deps, campaignJobHandlers)
  const sender = emailSender(t.deps, channel, options)
  return {
    jobs,
    sender,
    async drain(): Promise<number> {
      let sent = 0
      for (;;) {
        const ran = await jobs.runDue()
        const claimed = await sender.sendDue()
        sent += claimed
        if (ran === 0 && claimed === 0) return sent
      }
    },
  }
}

export async function campaignStatus(t: TestApp, setup: CampaignSetup, id: number): Promise<number> {
  const got = await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })
  assert.equal(got.statusCode, 200, got.body)
  return got.json<{ status: number }>().status
}
