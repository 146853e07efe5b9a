// A Viber campaign sent with Vonage application auth only (no TIDINGS_VIBER_TOKEN): the channel built from the
// settings as a process builds it, the private key given as a file, the stand-in taking the application's JWT, and
// its signed callbacks taken by the API because they name TIDINGS_VIBER_API_KEY; on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { applicationKeys, startVonage, type VonageStandIn } from '../../helpers/vonage.js'
import { viberDispatcher, viberRecipients, viberSetup, type ViberSetup } from '../../helpers/viber.js'
import { viberChannel } from '../../../src/delivery/viber/registry.js'
import type { ViberChannel } from '../../../src/delivery/viber/channel.js'

for (const dialect of DIALECTS) {
  describe(`Viber through a Vonage application on ${dialect}`, () => {
    let t: TestApp
    let a: ViberSetup
    let vonage: VonageStandIn
    let viber: ViberChannel

    before(async () => {
      const keys = applicationKeys()
      const keyFile = join(mkdtempSync(join(tmpdir(), 'tidings-vonage-')), 'private.key')
      writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 })
      vonage = await startVonage({ publicKey: keys.publicKey })
      t = await startTestApp(dialect, {
        viberPrices: 'default=0.02',
        viberUrl: vonage.url,
        viberApplicationId: vonage.applicationId,
        viberPrivateKey: keyFile,
        viberApiKey: vonage.apiKey,
        viberSignatureSecret: vonage.signatureSecret,
      })
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      a = await viberSetup(t)
      viber = viberChannel(t.deps.config, pino({ level: 'silent' }), `${address}/viber/callbacks/vonage`)
    })
    after(async () => {
      await viber?.close()
      await vonage?.close()
      await t?.close()
    })

    it('sends with the application\'s JWT and takes the callbacks that name the account\'s API key', async () => {
      const phones = [447400800000, 447400800001, 447400800002]
      vonage.outcomes.set(String(phones[1]), ['delivered', 'read'])
      const created = await t.call(a.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Sale', message_type: 2, sender_id: a.senderId, message_live_time: 3600, send_date: 'now', message: 'Sale today', recipients: phones },
      })
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json<{ data: { task_id: number } }>().data.task_id
      assert.equal(await viberDispatcher(t, viber).drain(), 3)
      assert.equal(vonage.accepted, 3)
      assert.ok(vonage.requests.every((r) => /^Bearer /.test(r.headers.authorization ?? '')))
      await vonage.waitForCallbacks(4)
      assert.deepEqual(vonage.refusedCallbacks(), [])
      assert.deepEqual((await viberRecipients(t, a.account, id)).map((r) => r.status), ['delivered', 'delivered and read', 'delivered'])
    })
  })
}
