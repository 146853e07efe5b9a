// An active sender made the way a user makes one: add it, ask for the code, read the code from the emailed
// message in the outbox (as its recipient would), and send it back.
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'
import type { TestAccount } from './factories.js'

export async function activeSender(t: TestApp, account: TestAccount, email: string, name = 'Sender'): Promise<void> {
  const added = await t.call(account, { method: 'POST', url: '/senders', payload: { email, name } })
  assert.equal(added.statusCode, 200, added.body)
  const asked = await t.call(account, { method: 'GET', url: `/senders/${email}/code` })
  assert.equal(asked.statusCode, 200, asked.body)
  const message = await t.deps.db
    .selectFrom('outbox')
    .select('text')
    .where('account_id', '=', account.id)
    .where('kind', '=', 'sender_code')
    .where('to_email', '=', email)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()
  const code = /\b(\d{6,})\b/.exec(message.text)?.[1]
  assert.ok(code, `a code in: ${message.text}`)
  const activated = await t.call(account, { method: 'POST', url: `/senders/${email}/code`, payload: { code } })
  assert.equal(activated.statusCode, 200, activated.body)
}
