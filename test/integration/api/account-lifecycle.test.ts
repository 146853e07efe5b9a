// Disabling, enabling, deleting an account, rotating its secret and revoking its tokens, seen by a second
// server over the same database (standing for another process with its own token cache).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { buildServer } from '../../../src/api/server.js'
import { openDatabase, type Storage } from '../../../src/storage/db.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import * as lifecycle from '../../../src/services/accounts/account-lifecycle.js'
import { GENERATION_CHECK_MS } from '../../../src/services/accounts/token-cache.js'
import * as accountsRepo from '../../../src/storage/repos/accounts.js'
import * as credentialsRepo from '../../../src/storage/repos/credentials.js'
import { digestToken, randomSecret } from '../../../src/lib/secrets.js'

const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed.',
  message: 'Client authentication failed.',
  error_code: 1,
}

for (const dialect of DIALECTS) {
  describe(`account lifecycle on ${dialect}`, () => {
    let t: TestApp
    let other: FastifyInstance
    let otherStorage: Storage

    before(async () => {
      t = await startTestApp(dialect)
      // Its own connection and its own token cache, on the same database and clock.
      otherStorage = openDatabase(t.database.url)
      other = await buildServer({ ...t.deps, db: otherStorage.db })
      await other.ready()
    })
    after(async () => {
      await other.close()
      await otherStorage.close()
      await t.close()
    })

    const tokenCall = (app: FastifyInstance, clientId: string, secret: string) =>
      app.inject({ method: 'POST', url: '/oauth/access_token', payload: { client_id: clientId, client_secret: secret } })
    const tokenOf = async (app: FastifyInstance, clientId: string, secret: string) => {
      const res = await tokenCall(app, clientId, secret)
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ access_token: string }>().access_token
    }
    const list = (app: FastifyInstance, bearer: string) => app.inject({ method: 'GET', url: '/addressbooks', headers: { authorization: `Bearer ${bearer}` } })
    /** The other server has cached the token: it answered with it once. */
    const cachedOnOther = async (token: string) => assert.equal((await list(other, token)).statusCode, 200)
    const assertRefusedBearer = async (app: FastifyInstance, bearer: string) => {
      const res = await list(app, bearer)
      assert.equal(res.statusCode, 401)
      assert.equal(res.json<{ error?: string }>().error, undefined, 'never invalid_client on an API call')
    }

    it('refuses a disabled account its token call, its old tokens on every server and its API keys; enable lets it in again', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'to disable' })
      const key = await accounts.createApiKey(t.deps, acct.id, 'php')
      const token = await tokenOf(t.app, acct.client_id, acct.client_secret)
      await cachedOnOther(token)
      await cachedOnOther(key.api_key)

      await lifecycle.disableAccount(t.deps, acct.id)
      t.clock.advance(GENERATION_CHECK_MS)
      await assertRefusedBearer(other, token)
      await assertRefusedBearer(t.app, token)
      await assertRefusedBearer(other, key.api_key)
      const refused = await tokenCall(other, acct.client_id, acct.client_secret)
      assert.equal(refused.statusCode, 401)
      assert.deepEqual(refused.json(), INVALID_CLIENT)

      await lifecycle.enableAccount(t.deps, acct.id)
      const fresh = await tokenOf(other, acct.client_id, acct.client_secret)
      assert.equal((await list(t.app, fresh)).statusCode, 200)
      assert.equal((await list(other, key.api_key)).statusCode, 200, 'API keys work again once enabled')
      await assertRefusedBearer(other, token)
    })

    it('rotating the secret refuses the old secret at once and its tokens on every server after the generation check', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'to rotate' })
      const token = await tokenOf(t.app, acct.client_id, acct.client_secret)
      await cachedOnOther(token)

      const rotated = await lifecycle.rotateClientSecret(t.deps, acct.id)
      assert.deepEqual(Object.keys(rotated).sort(), ['client_id', 'client_secret'])
      assert.equal(rotated.client_id, acct.client_id)
      assert.notEqual(rotated.client_secret, acct.client_secret)
      assert.deepEqual((await tokenCall(other, acct.client_id, acct.client_secret)).json(), INVALID_CLIENT)
      t.clock.advance(GENERATION_CHECK_MS)
      await assertRefusedBearer(other, token)
      const fresh = await tokenOf(other, rotated.client_id, rotated.client_secret)
      assert.equal((await list(other, fresh)).statusCode, 200)
    })

    it('revoking the tokens ends every token of that account only, and the credentials still work', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'to revoke' })
      const bystander = await accounts.createAccount(t.deps, { name: 'bystander' })
      const token = await tokenOf(t.app, acct.client_id, acct.client_secret)
      const untouched = await tokenOf(t.app, bystander.client_id, bystander.client_secret)
      await cachedOnOther(token)
      await cachedOnOther(untouched)

      assert.equal(await lifecycle.revokeTokens(t.deps, acct.id), 1)
      t.clock.advance(GENERATION_CHECK_MS)
      await assertRefusedBearer(other, token)
      assert.equal((await list(other, untouched)).statusCode, 200, "another account's token is not revoked")
      const fresh = await tokenOf(other, acct.client_id, acct.client_secret)
      assert.equal((await list(other, fresh)).statusCode, 200)
    })

    it('revoking an API key refuses it on every server after the generation check; its other keys still work', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'key revoked' })
      const leaked = await accounts.createApiKey(t.deps, acct.id, 'leaked')
      const kept = await accounts.createApiKey(t.deps, acct.id, 'kept')
      await cachedOnOther(leaked.api_key)
      await cachedOnOther(kept.api_key)

      await accounts.revokeApiKey(t.deps, acct.id, leaked.id)
      t.clock.advance(GENERATION_CHECK_MS)
      await assertRefusedBearer(other, leaked.api_key)
      await assertRefusedBearer(t.app, leaked.api_key)
      assert.equal((await list(other, kept.api_key)).statusCode, 200)
    })

    it('a deleted account is refused for good: tokens, API keys, the token call; it cannot be enabled again', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'to delete' })
      const key = await accounts.createApiKey(t.deps, acct.id, 'php')
      const token = await tokenOf(t.app, acct.client_id, acct.client_secret)
      await cachedOnOther(token)

      await lifecycle.deleteAccount(t.deps, acct.id)
      t.clock.advance(GENERATION_CHECK_MS)
      await assertRefusedBearer(other, token)
      await assertRefusedBearer(other, key.api_key)
      assert.deepEqual((await tokenCall(other, acct.client_id, acct.client_secret)).json(), INVALID_CLIENT)
      await assert.rejects(lifecycle.enableAccount(t.deps, acct.id), /not found/)
      await assert.rejects(lifecycle.rotateClientSecret(t.deps, acct.id), /not found/)
      const listed = (await accounts.listAccounts(t.deps)).find((a) => a.id === acct.id)
      assert.equal(listed?.status, 'deleted')
    })

    it('refuses a token written after a rotation by a token call that read the account before it', async () => {
      const acct = await accounts.createAccount(t.deps, { name: 'race' })
      const before = await accountsRepo.findAccountById(t.deps.db, acct.id)
      await lifecycle.rotateClientSecret(t.deps, acct.id)
      // What issueToken writes when its ~45 ms secret check of the old secret overlapped the rotation.
      const late = randomSecret(32)
      const now = t.clock.now
      await credentialsRepo.recordAccessToken(t.deps.db, {
        tokenHash: digestToken(late),
        accountId: acct.id,
        credentialsVersion: before!.credentialsVersion,
        expiresAt: now + 3600_000,
        now,
      })
      await assertRefusedBearer(other, late)
    })

    it('answers not found for an account that does not exist', async () => {
      for (const change of [lifecycle.disableAccount, lifecycle.enableAccount, lifecycle.revokeTokens, lifecycle.deleteAccount, lifecycle.rotateClientSecret]) {
        await assert.rejects(change(t.deps, 999_999), /account 999999 not found/)
      }
    })
  })
}
