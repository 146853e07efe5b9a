import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config/load.js'
import { redactConfig } from '../../../src/config/redact.js'

describe('loadConfig', () => {
  it('layers defaults, file, environment and overrides in that order', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tidings-config-')), 'config.json')
    writeFileSync(file, JSON.stringify({ port: 9000, host: '0.0.0.0', logLevel: 'debug' }))
    const config = loadConfig({ file, env: { PORT: '9100', TIDINGS_DATA_DIR: '/srv/tidings' }, overrides: { port: 9200 } })
    assert.equal(config.port, 9200)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.logLevel, 'debug')
    assert.equal(config.databaseUrl, 'sqlite:/srv/tidings/tidings.db')
    assert.ok(Object.isFrozen(config))
  })

  it('names the environment variable of an invalid setting', () => {
    assert.throws(() => loadConfig({ env: { PORT: 'eighty' } }), /port \(PORT\)/)
  })

  it('hides the database password when shown', () => {
    const config = loadConfig({ env: { DATABASE_URL: 'postgres://app:s3cret@db.local/tidings' } })
    assert.equal(redactConfig(config).databaseUrl, 'postgres://app:*****@db.local/tidings')
  })

  it('hides every secret setting: a key with a colon, passwords in any URL and its query, SMTP credentials, the DKIM key', () => {
    const secrets = ['k3y:with:colons-and-more-than-32-bytes!', 'dbpass', 'querypass', 'smtppass', 'PRIVATEKEYBODY', 'older:key-also-at-least-32-bytes-long']
    const config = loadConfig({
      env: {
        TIDINGS_SECRET_KEY: secrets[0],
        DATABASE_URL: `postgres://app:${secrets[1]}@db.local/tidings?sslmode=require&password=${secrets[2]}`,
        TIDINGS_SMTP_URL: `smtps://mailer:${secrets[3]}@smtp.example.org:465`,
        TIDINGS_DKIM_PRIVATE_KEY: `-----BEGIN PRIVATE KEY-----\n${secrets[4]}\n-----END PRIVATE KEY-----`,
        TIDINGS_SECRET_KEY_OLD: secrets[5],
      },
    })
    const shown = redactConfig(config)
    const text = JSON.stringify(shown)
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} is hidden in ${text}`)
    assert.equal(shown.databaseUrl, 'postgres://app:*****@db.local/tidings?sslmode=require&password=*****')
    assert.equal(shown.smtpUrl, 'smtps://mailer:*****@smtp.example.org:465')
    assert.equal(shown.secretKey, '*****')
    assert.equal(shown.port, 8080, 'other settings are shown as they are')
    assert.equal(shown.publicUrl, 'http://localhost:8080')
  })

  it('hides settings named like secrets and credentials in any URL or key=value setting, marked or not', () => {
    const shown = redactConfig(
      { viberToken: 'a:b', webhookSigningKey: 'c', apiPassword: 'd', tokenTtlSeconds: 3600, hookUrl: 'https://TOKEN123@hooks.example/x?api_key=K456&page=2', pgOptions: 'host=db password=P789 user=app' } as never,
      {},
    )
    assert.deepEqual(shown, {
      viberToken: '*****',
      webhookSigningKey: '*****',
      apiPassword: '*****',
      tokenTtlSeconds: 3600,
      hookUrl: 'https://*****@hooks.example/x?api_key=*****&page=2',
      pgOptions: 'host=db password=***** user=app',
    })
  })

  it('refuses a secret key shorter than 32 bytes, naming the variable', () => {
    assert.throws(() => loadConfig({ env: { TIDINGS_SECRET_KEY: 'short:secret' } }), /secretKey \(TIDINGS_SECRET_KEY\): must be at least 32 bytes, is 12/)
    assert.throws(
      () => loadConfig({ env: { TIDINGS_SECRET_KEY: 'x'.repeat(31), TIDINGS_SECRET_KEY_OLD: 'y'.repeat(40) } }),
      /secretKey \(TIDINGS_SECRET_KEY\): must be at least 32 bytes, is 31/,
    )
    assert.equal(loadConfig({ env: { TIDINGS_SECRET_KEY: 'x'.repeat(32) } }).secretKey, 'x'.repeat(32))
    assert.equal(loadConfig({ env: {} }).secretKey, '', 'none set: one is generated')
  })

  it('accepts a short old key, so an install with a short key can rotate away from it', () => {
    const config = loadConfig({ env: { TIDINGS_SECRET_KEY: 'n'.repeat(32), TIDINGS_SECRET_KEY_OLD: 'short:secret' } })
    assert.deepEqual([config.secretKey, config.secretKeyOld], ['n'.repeat(32), 'short:secret'])
    assert.equal(loadConfig({ env: { TIDINGS_SECRET_KEY: 'n'.repeat(32), TIDINGS_SECRET_KEY_OLD: 'generated' } }).secretKeyOld, 'generated')
  })

  it('reads the link lifetime and the content origin', () => {
    const config = loadConfig({ env: { TIDINGS_LINK_TTL_DAYS: '45', TIDINGS_CONTENT_URL: 'https://content.example.net' } })
    assert.deepEqual([config.linkTtlDays, config.contentUrl], [45, 'https://content.example.net'])
    assert.equal(loadConfig({ env: {} }).linkTtlDays, 30)
    assert.throws(() => loadConfig({ env: { TIDINGS_LINK_TTL_DAYS: '0' } }), /linkTtlDays \(TIDINGS_LINK_TTL_DAYS\)/)
    assert.throws(() => loadConfig({ env: { TIDINGS_CONTENT_URL: 'content.example.net' } }), /contentUrl \(TIDINGS_CONTENT_URL\)/)
  })
})
