// The SMS settings: defaults, environment variables, the SMSC password hidden when shown, bad URLs refused at start.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../../../src/config/load.js'
import { redactConfig } from '../../../src/config/redact.js'

describe('SMS settings', () => {
  it('default to capture, a window of 10, keep-alives every 30 s, unpacked GSM-7 and no rate limit', () => {
    const config = loadConfig({ env: {} })
    assert.deepEqual(
      [config.smppUrl, config.smppWindow, config.smppEnquireLinkSeconds, config.smppGsm7Packing, config.smsRatePerSecond],
      ['', 10, 30, 'unpacked', 0],
    )
  })

  it('are read from the environment', () => {
    const config = loadConfig({
      env: { TIDINGS_SMPP_URL: 'ssmpp://tidings:pw@smsc.example.net:3550', TIDINGS_SMPP_WINDOW: '100', TIDINGS_SMPP_ENQUIRE_LINK: '15', TIDINGS_SMPP_GSM7_PACKING: 'packed', TIDINGS_SMS_RATE: '1000' },
    })
    assert.deepEqual(
      [config.smppUrl, config.smppWindow, config.smppEnquireLinkSeconds, config.smppGsm7Packing, config.smsRatePerSecond],
      ['ssmpp://tidings:pw@smsc.example.net:3550', 100, 15, 'packed', 1000],
    )
  })

  it('hide the SMSC password when shown', () => {
    const config = loadConfig({ env: { TIDINGS_SMPP_URL: 'smpp://tidings:s3cr3tpw@smsc.example.net:2775' } })
    assert.equal(redactConfig(config).smppUrl, 'smpp://tidings:*****@smsc.example.net:2775')
  })

  it('refuse an SMSC URL of another scheme, or without a system_id or host, without echoing it', () => {
    assert.throws(() => loadConfig({ env: { TIDINGS_SMPP_URL: 'http://tidings:pw@smsc.example.net' } }), /smppUrl \(TIDINGS_SMPP_URL\)/)
    for (const url of ['smpp://smsc.example.net:2775', 'smpp://', 'smpp://:hunter2@']) {
      assert.throws(() => loadConfig({ env: { TIDINGS_SMPP_URL: url } }), (err: Error) => /smppUrl \(TIDINGS_SMPP_URL\)/.test(err.message) && !err.message.includes('hunter2'), url)
    }
    assert.throws(() => loadConfig({ env: { TIDINGS_SMPP_WINDOW: '0' } }), /smppWindow \(TIDINGS_SMPP_WINDOW\)/)
    assert.throws(() => loadConfig({ env: { TIDINGS_SMPP_GSM7_PACKING: 'septets' } }), /smppGsm7Packing \(TIDINGS_SMPP_GSM7_PACKING\)/)
  })
})
