import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { convertMicros, parseCurrencyRates } from '../../../src/lib/currency-rates.js'

describe('currency rates', () => {
  it('parses CODE=RATE entries into exact fractions keyed by upper-case code, spaces allowed', () => {
    const rates = parseCurrencyRates(' usd=1, EUR = 0.92,UAH=41.30 ')
    assert.deepEqual([...rates.keys()], ['USD', 'EUR', 'UAH'])
    assert.deepEqual(rates.get('EUR'), { units: 92n, scale: 100n })
    assert.deepEqual(rates.get('UAH'), { units: 4130n, scale: 100n })
  })

  it('refuses malformed entries, zero rates and a currency given twice', () => {
    for (const [text, message] of [
      ['USD=1,EUR', /"EUR" is not CODE=RATE/],
      ['USD=1,EUR=.', /"EUR=\." is not CODE=RATE/],
      ['USD=1.2.3', /not CODE=RATE/],
      ['USD=1,EUR=0.00', /rate of EUR must be above 0/],
      ['USD=1,usd=2', /USD is given twice/],
    ] as const) {
      assert.throws(() => parseCurrencyRates(text), message, text)
    }
  })

  it('converts micro-units exactly and rounds half away from zero, for negative amounts too', () => {
    const rates = parseCurrencyRates('USD=1,EUR=0.92,UAH=41.3,HLF=0.5')
    const rate = (code: string) => {
      const found = rates.get(code)
      assert.ok(found, code)
      return found
    }
    const [usd, eur, uah, half] = [rate('USD'), rate('EUR'), rate('UAH'), rate('HLF')]
    assert.equal(convertMicros(100_000_000, usd, eur), 92_000_000)
    assert.equal(convertMicros(92_000_000, eur, usd), 100_000_000)
    // 1 µUSD is 41.3 µUAH: 41; 2 µUSD is 82.6 µUAH: 83.
    assert.equal(convertMicros(1, usd, uah), 41)
    assert.equal(convertMicros(2, usd, uah), 83)
    assert.equal(convertMicros(-2, usd, uah), -83)
    // Exactly half a micro-unit: 1 × 0.5 = 0.5 → 1, and -0.5 → -1.
    assert.equal(convertMicros(1, usd, half), 1)
    assert.equal(convertMicros(-1, usd, half), -1)
    assert.equal(convertMicros(3, usd, half), 2)
    // Beyond 2^53 in the intermediate product, still exact: 10^12 units × 41.3.
    assert.equal(convertMicros(1e18, usd, uah), 41.3e18)
  })
})
