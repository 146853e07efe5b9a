// The Vonage provider settings: Basic credentials or an application (id + RSA private key, as PEM text or a file's
// path), the API key callbacks must name, and each way they can be wrong refused at start, naming the setting and
// never showing the key. Keys are made here, at test time.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config/load.js'
import { redactConfig } from '../../../src/config/redact.js'

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PKCS8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
const PKCS1 = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()
/** A line from the middle of the key: no error may show it. */
const KEY_BODY = PKCS8.split('\n')[5]!
const APPLICATION_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab'

const provider = { TIDINGS_VIBER_URL: 'https://api.nexmo.com/v1/messages', TIDINGS_VIBER_SIGNATURE_SECRET: 'signature-secret' }
const application = { ...provider, TIDINGS_VIBER_APPLICATION_ID: APPLICATION_ID, TIDINGS_VIBER_PRIVATE_KEY: PKCS8, TIDINGS_VIBER_API_KEY: 'abcd1234' }

/** The error loading `env` gives, checked to name `setting` and to show no part of any key. */
function refusal(env: Record<string, string>, setting: RegExp): string {
  let message = ''
  assert.throws(() => loadConfig({ env }), (err: Error) => {
    message = err.message
    return true
  })
  assert.match(message, setting)
  for (const secret of [KEY_BODY, 'MIIE', 'secret-of-the-api']) assert.ok(!message.includes(secret), `${secret} shown in: ${message}`)
  return message
}

describe('Viber provider settings', () => {
  it('take an application: its id, its private key as PKCS#8 or PKCS#1 PEM text or a file, and the API key callbacks name', () => {
    const config = loadConfig({ env: application })
    assert.deepEqual([config.viberApplicationId, config.viberPrivateKey, config.viberApiKey, config.viberToken], [APPLICATION_ID, PKCS8, 'abcd1234', ''])
    assert.equal(loadConfig({ env: { ...application, TIDINGS_VIBER_PRIVATE_KEY: PKCS1 } }).viberPrivateKey, PKCS1)
    const file = join(mkdtempSync(join(tmpdir(), 'tidings-vonage-')), 'private.key')
    writeFileSync(file, PKCS8)
    assert.equal(loadConfig({ env: { ...application, TIDINGS_VIBER_PRIVATE_KEY: file } }).viberPrivateKey, file)
  })

  it('take Basic credentials alone, or with an application; the API key is then the token\'s', () => {
    const basic = loadConfig({ env: { ...provider, TIDINGS_VIBER_TOKEN: 'abcd1234:secret-of-the-api' } })
    assert.deepEqual([basic.viberApiKey, basic.viberApplicationId], ['abcd1234', ''])
    const both = loadConfig({ env: { ...application, TIDINGS_VIBER_API_KEY: '', TIDINGS_VIBER_TOKEN: 'abcd1234:secret-of-the-api' } })
    assert.deepEqual([both.viberApiKey, both.viberApplicationId], ['abcd1234', APPLICATION_ID])
  })

  it('hide the private key when shown', () => {
    const shown = redactConfig(loadConfig({ env: application }))
    assert.equal(shown.viberPrivateKey, '*****')
    assert.ok(!JSON.stringify(shown).includes(KEY_BODY))
  })

  it('refuse a private key that cannot sign RS256, naming the setting and not showing the key', () => {
    const setting = /viberPrivateKey \(TIDINGS_VIBER_PRIVATE_KEY\)/
    const { privateKey: ec } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const { privateKey: short } = generateKeyPairSync('rsa', { modulusLength: 1024 })
    const refused = (key: string) => refusal({ ...application, TIDINGS_VIBER_PRIVATE_KEY: key }, setting)
    const lines = PKCS8.split('\n')
    assert.match(refused(PKCS8.replace(lines[1]!, 'A'.repeat(64))), /not a PEM private key/)
    // Its modulus changed: OpenSSL reads it, but it could sign nothing Vonage would take.
    assert.match(refused(PKCS8.replace(lines[3]!, lines[3]!.split('').reverse().join(''))), /damaged/)
    assert.match(refused(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()), /not a PEM private key/)
    assert.match(refused(PKCS8.replaceAll('\n', '\\n')), /`\\n` where line breaks belong/)
    assert.match(refused(ec.export({ type: 'pkcs8', format: 'pem' }).toString()), /an RSA private key is needed, this one is ec/)
    assert.match(refused(short.export({ type: 'pkcs8', format: 'pem' }).toString()), /1024 bits, RS256 needs 2048/)
    assert.match(refused(rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString()), /encrypted/)
    // A key pasted without its BEGIN line is read as a path: the error must not echo it. Its Base64 has '/' in it:
    // when the random key makes a piece between two of them longer than 255 bytes, the path is ENAMETOOLONG.
    assert.match(refused(PKCS8.split('\n').slice(1, -2).join('\n')), /neither PEM text nor the path of a readable file \((ENOENT|ENAMETOOLONG)\)/)
    assert.match(refused('/nonexistent/private.key'), /\(ENOENT\)/)
  })

  it('refuse an application without its key, a key without its application, or an id that is not one', () => {
    const { TIDINGS_VIBER_PRIVATE_KEY: _key, ...withoutKey } = application
    refusal(withoutKey, /viberPrivateKey \(TIDINGS_VIBER_PRIVATE_KEY\): required with TIDINGS_VIBER_APPLICATION_ID/)
    const { TIDINGS_VIBER_APPLICATION_ID: _id, ...withoutId } = application
    refusal(withoutId, /viberApplicationId \(TIDINGS_VIBER_APPLICATION_ID\): required with TIDINGS_VIBER_PRIVATE_KEY/)
    refusal({ ...application, TIDINGS_VIBER_APPLICATION_ID: 'abcd1234' }, /viberApplicationId \(TIDINGS_VIBER_APPLICATION_ID\): expected the application's id, a UUID/)
  })

  it('refuse a provider without credentials, a malformed token, or callbacks that could name no key', () => {
    refusal(provider, /viberToken \(TIDINGS_VIBER_TOKEN\): expected API_KEY:API_SECRET, or an application: TIDINGS_VIBER_APPLICATION_ID and TIDINGS_VIBER_PRIVATE_KEY/)
    refusal({ ...application, TIDINGS_VIBER_TOKEN: 'no-colon' }, /viberToken \(TIDINGS_VIBER_TOKEN\): expected API_KEY:API_SECRET$/m)
    const { TIDINGS_VIBER_API_KEY: _apiKey, ...withoutApiKey } = application
    refusal(withoutApiKey, /viberApiKey \(TIDINGS_VIBER_API_KEY\): required with an application when TIDINGS_VIBER_TOKEN is not set/)
    refusal({ ...provider, TIDINGS_VIBER_TOKEN: 'abcd1234:secret-of-the-api', TIDINGS_VIBER_API_KEY: 'other' }, /viberApiKey \(TIDINGS_VIBER_API_KEY\): differs from the API key of TIDINGS_VIBER_TOKEN/)
    refusal({ ...application, TIDINGS_VIBER_SIGNATURE_SECRET: '' }, /viberSignatureSecret \(TIDINGS_VIBER_SIGNATURE_SECRET\): required/)
  })
})
