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
})
