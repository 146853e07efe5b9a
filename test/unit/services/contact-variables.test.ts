// The value and name rules of contact variables (API.md 4.1, 4.1.1).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { coerceToType, inferVariableType, isDate, variableNameProblem } from '../../../src/services/audience/contact-variables.js'

describe('contact variables', () => {
  it('takes only real calendar dates written YYYY-MM-DD', () => {
    for (const good of ['2017-01-01', '2024-02-29', '2000-02-29', '1999-12-31']) assert.equal(isDate(good), true, good)
    for (const bad of ['2017-1-1', '2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-01 10:00', '']) {
      assert.equal(isDate(bad), false, bad)
    }
  })

  it('reads dates as the regular expression it replaced did, character by character', () => {
    const reference = (text: string) => {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
      if (!m) return false
      const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
      const days = mo === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31
      return mo >= 1 && mo <= 12 && d >= 1 && d <= days
    }
    const odd = ['２０２４-01-01', '+024-01-01', ' 024-01-01', '2024-01-1a', '2024-01-01\n', '2024/01/01', '2024-0１-01', '0000-02-29', '0004-02-29', '9999-12-31', '2024-01-01x']
    for (const text of odd) assert.equal(isDate(text), reference(text), JSON.stringify(text))
    // Random strings of the date's shape, digits or not, every position varied.
    const alphabet = '0123456789-/: a٣'
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let n = 0; n < 20_000; n++) {
      const text = Array.from({ length: 8 + Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
      const dated = `${2000 + Math.floor(random() * 30)}-${String(Math.floor(random() * 14)).padStart(2, '0')}-${String(Math.floor(random() * 33)).padStart(2, '0')}`
      assert.equal(isDate(text), reference(text), JSON.stringify(text))
      assert.equal(isDate(dated), reference(dated), dated)
    }
  })

  it('types a new variable by its first value', () => {
    assert.deepEqual([inferVariableType(3), inferVariableType('2020-05-06'), inferVariableType('3')], ['number', 'date', 'string'])
  })

  it('lets a number variable take numbers and numeric strings only, naming the variable otherwise', () => {
    assert.equal(coerceToType('age', 'number', '77'), 77)
    assert.equal(coerceToType('age', 'number', 1.5), 1.5)
    assert.throws(() => coerceToType('age', 'number', '7 years'), /"age".*number/)
    assert.equal(coerceToType('city', 'string', 12), '12')
    assert.throws(() => coerceToType('since', 'date', '2017-1-1'), /"since".*YYYY-MM-DD/)
  })

  it('allows names in any script with the published punctuation, and refuses names without a letter', () => {
    for (const good of ['name', 'Имя клиента', "it's ok?", 'a/b-c_d.e,f!"g"', 'ім\u0027я']) assert.equal(variableNameProblem(good), undefined, good)
    for (const bad of ['123', '...', 'semi;colon', 'a<b', 'tab\tname', 'x'.repeat(256)]) assert.ok(variableNameProblem(bad), bad)
  })
})
