// The signing key (generated once per database, shared through `settings`), confirmation links signed with it,
// and queueing confirmation emails in the caller's transaction.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { openDatabase } from '../../../src/storage/db.js'
import { signingKey } from '../../../src/tracking/signing-key.js'
import { confirmationLink, queueConfirmations, readConfirmationToken } from '../../../src/services/audience/confirmation-email.js'
import { listOutbox, listOutboxInFull } from '../../../src/services/email/outbox.js'
import { activateSender, addSender, requestActivationCode } from '../../../src/services/email/senders.js'
import { signToken } from '../../../src/tracking/signed-token.js'

for (const dialect of DIALECTS) {
  describe(`signing key and confirmation emails on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect)
    })
    after(() => t.close())

    const settings = () => t.deps.db.selectFrom('settings').selectAll().execute()
    const batch = (accountId: number, count: number) => ({
      accountId,
      bookName: 'Weekly <news>',
      sender: { email: 'owner@example.com', name: 'Owner & Co' },
      lang: 'ru' as const,
      contacts: Array.from({ length: count }, (_, i) => ({ id: 1000 + i, email: `c${i}@example.com` })),
    })

    it('queues nothing and stores no key when the caller\'s transaction rolls back', async () => {
      const account = await t.account()
      await assert.rejects(
        t.deps.db.transaction().execute(async (trx) => {
          await queueConfirmations(trx, t.deps, batch(account.id, 3))
          assert.equal((await listOutbox(trx, account.id, { limit: 10, offset: 0 })).length, 3)
          throw new Error('rolled back')
        }),
        /rolled back/,
      )
      assert.deepEqual(await listOutbox(t.deps.db, account.id, { limit: 10, offset: 0 }), [])
      assert.deepEqual(await settings(), [], 'the key created in the rolled-back transaction is gone')
    })

    it('queues one confirmation per contact inside a transaction, with a link that names that contact', async () => {
      const account = await t.account()
      await t.deps.db.transaction().execute((trx) => queueConfirmations(trx, t.deps, batch(account.id, 1201)))
      const emails = await listOutboxInFull(t.deps.db, account.id, { limit: 2000, offset: 0 })
      assert.equal(emails.length, 1201)
      for (const [i, email] of emails.entries()) {
        assert.deepEqual(
          { kind: email.kind, from: email.from, to: email.to, status: email.status },
          { kind: 'confirmation', from: { email: 'owner@example.com', name: 'Owner & Co' }, to: `c${i}@example.com`, status: 'queued' },
        )
      }
      const first = emails[0]!
      assert.match(first.subject, /Weekly <news>/)
      assert.ok(first.html.includes('Weekly &lt;news&gt;') && first.html.includes('Owner &amp; Co'))
      const link = /(http:\/\/\S+\/confirm\/\S+)/.exec(first.text)?.[1]
      assert.ok(link && link.startsWith(`${t.deps.config.publicUrl}/confirm/`), first.text)
      assert.deepEqual(await readConfirmationToken(t.deps, link.split('/').at(-1)!), { contactId: 1000, expired: false })
      assert.equal((await settings()).length, 1, 'the key is stored once')
    })

    it('keeps one key per database: another connection reads the same key, and links round-trip', async () => {
      const key = await signingKey(t.deps)
      assert.equal(key.length, 32)
      const other = openDatabase(t.database.url)
      try {
        assert.deepEqual(await signingKey({ ...t.deps, db: other.db }), key)
      } finally {
        await other.close()
      }
      assert.equal((await settings()).length, 1)
      const link = await confirmationLink(t.deps, 42)
      assert.deepEqual(await readConfirmationToken(t.deps, link.slice(link.lastIndexOf('/') + 1)), { contactId: 42, expired: false })
    })

    it('refuses tampered tokens, tokens for another purpose and tokens signed with another key', async () => {
      const link = await confirmationLink(t.deps, 7)
      const token = link.slice(link.lastIndexOf('/') + 1)
      const key = await signingKey(t.deps)
      const otherKey = Buffer.alloc(32, 1)
      for (const bad of [
        token.slice(0, -1),
        `${signToken(key, 'confirm', '8').split('.')[0]}.${token.split('.')[1]}`,
        signToken(key, 'unsubscribe', '7'),
        signToken(otherKey, 'confirm', '7'),
        signToken(key, 'confirm', '7abc'),
        signToken(key, 'confirm', '0'),
        '',
      ]) {
        assert.equal(await readConfirmationToken(t.deps, bad), undefined, bad)
      }
    })

    const withKeys = (secretKey: string, secretKeyOld = '') => ({ ...t.deps, config: { ...t.deps.config, secretKey, secretKeyOld } })
    const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1)
    const NEW_KEY = 'the new key, at least 32 bytes long'
    const OLD_KEY = 'the old key, at least 32 bytes long'

    it('uses TIDINGS_SECRET_KEY when set', async () => {
      const deps = withKeys(NEW_KEY)
      assert.deepEqual(await signingKey(deps), Buffer.from(NEW_KEY))
      const token = tokenOf(await confirmationLink(deps, 9))
      assert.deepEqual(await readConfirmationToken(deps, token), { contactId: 9, expired: false })
      assert.equal(await readConfirmationToken(t.deps, token), undefined, 'the stored key does not read it')
    })

    it('rotates keys: links signed with TIDINGS_SECRET_KEY_OLD still verify, new ones are signed with the new key', async () => {
      const before = tokenOf(await confirmationLink(withKeys(OLD_KEY), 11))
      const rotated = withKeys(NEW_KEY, OLD_KEY)
      assert.deepEqual(await readConfirmationToken(rotated, before), { contactId: 11, expired: false }, 'an email sent before the rotation')
      const after = tokenOf(await confirmationLink(rotated, 12))
      assert.deepEqual(await readConfirmationToken(withKeys(NEW_KEY), after), { contactId: 12, expired: false }, 'signed with the new key')
      assert.equal(await readConfirmationToken(withKeys(OLD_KEY), after), undefined, 'not with the old one')
      assert.equal(await readConfirmationToken(withKeys(NEW_KEY), before), undefined, 'once the old key is dropped its links stop working')
    })

    it('refuses links signed with the generated key once a key is configured, unless TIDINGS_SECRET_KEY_OLD=generated', async () => {
      const generated = tokenOf(await confirmationLink(t.deps, 13))
      assert.equal(await readConfirmationToken(withKeys(NEW_KEY), generated), undefined, 'a leaked generated key is retired')
      assert.deepEqual(await readConfirmationToken(withKeys(NEW_KEY, 'generated'), generated), { contactId: 13, expired: false })
      const signedNew = tokenOf(await confirmationLink(withKeys(NEW_KEY, 'generated'), 14))
      assert.deepEqual(await readConfirmationToken(withKeys(NEW_KEY), signedNew), { contactId: 14, expired: false }, 'new links: the new key')
      assert.equal(await readConfirmationToken(withKeys(NEW_KEY, OLD_KEY), generated), undefined, 'a real old key does not bring it back')
    })

    it('reads TIDINGS_SECRET_KEY_OLD=generated as the stored key, not as a key spelled "generated"', async () => {
      const spelled = tokenOf(await confirmationLink(withKeys('generated'), 15))
      assert.equal(await readConfirmationToken(withKeys(NEW_KEY, 'generated'), spelled), undefined)
      assert.equal(await readConfirmationToken(withKeys('', 'generated'), spelled), undefined, 'nor without a configured key')
      const generated = tokenOf(await confirmationLink(withKeys('', 'generated'), 16))
      assert.deepEqual(await readConfirmationToken(t.deps, generated), { contactId: 16, expired: false }, 'the generated key still signs')
    })

    it('accepts an activation code hashed with the old key after the rotation', async () => {
      const account = await t.account()
      const old = withKeys(OLD_KEY)
      await addSender(old, account.id, { email: 'rotated@example.org', name: 'Rotated' })
      await requestActivationCode(old, account.id, 'rotated@example.org')
      const [email] = await listOutboxInFull(t.deps.db, account.id, { limit: 1, offset: 0 })
      const code = /\b(\d{8})\b/.exec(email!.text)![1]!
      assert.equal(await activateSender(withKeys(NEW_KEY, OLD_KEY), account.id, 'rotated@example.org', code), 'rotated@example.org')
    })
  })
}
