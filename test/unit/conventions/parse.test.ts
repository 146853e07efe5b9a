import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_FORM_PARAMETERS, MAX_JSON_DEPTH, parseForm, parseJsonText } from '../../../src/api/conventions/parse.js'
import { AppError } from '../../../src/services/errors.js'

describe('parseForm', () => {
  it('reads PHP bracket lists in index order, filling no gaps, and maps keyed by other names as objects', () => {
    const cases: [string, unknown][] = [
      ['a[1]=y&a[0]=x', { a: ['x', 'y'] }],
      ['a[0]=x&a[5]=y', { a: ['x', 'y'] }],
      ['a[]=x&a[]=y&b=1&b=2', { a: ['x', 'y'], b: ['1', '2'] }],
      ['emails[0][email]=a%40b.c&emails[0][variables][name]=Ann&emails[1][email]=c%40d.e', { emails: [{ email: 'a@b.c', variables: { name: 'Ann' } }, { email: 'c@d.e' }] }],
      ['a[0][0]=1&a[0][1]=2&a[1][0]=3', { a: [['1', '2'], ['3']] }],
      ['route[UA]=national&a[0]=x&a[b]=y', { route: { UA: 'national' }, a: { 0: 'x', b: 'y' } }],
      ['phones[380631234567][0][0][name]=n', { phones: { 380631234567: [[{ name: 'n' }]] } }],
      ['0=a%40b.c&1=c%40d.e', { 0: 'a@b.c', 1: 'c@d.e' }],
      ['a[__proto__][x]=1&name=a+b', { name: 'a b' }],
    ]
    for (const [form, want] of cases) assert.deepEqual(parseForm(form), want, form)
  })

  it('reads an index as high as the parameter limit allows as a map key, not as a list of that length', () => {
    assert.deepEqual(parseForm(`a[${MAX_FORM_PARAMETERS - 1}]=x`), { a: ['x'] })
    assert.deepEqual(parseForm(`a[${MAX_FORM_PARAMETERS}]=x`), { a: { [MAX_FORM_PARAMETERS]: 'x' } })
  })

  it('reads sparse high indexes in time linear in the input: 1,000 of them each name one item', () => {
    const form = parseForm(Array.from({ length: 1000 }, (_, i) => `a${i}[99999]=`).join('&'))
    assert.equal(Object.keys(form).length, 1000)
    assert.deepEqual(form.a999, { 99999: '' })
  })

  it('refuses more parameters than the limit with the error code it is given', () => {
    const form = 'a=1&'.repeat(MAX_FORM_PARAMETERS).slice(0, -1)
    assert.equal(Object.keys(parseForm(form)).length, 1)
    assert.throws(() => parseForm(`${form}&b=2`), (err) => err instanceof AppError && err.code === 'payload_too_large')
    assert.throws(() => parseForm(`${form}&b=2`, 'uri_too_long'), (err) => err instanceof AppError && err.code === 'uri_too_long')
  })
})

describe('parseJsonText', () => {
  it(`reads JSON nested ${MAX_JSON_DEPTH} levels and refuses one level more, counting no bracket inside strings`, () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
    assert.ok(Array.isArray(parseJsonText(nested(MAX_JSON_DEPTH))))
    assert.throws(() => parseJsonText(nested(MAX_JSON_DEPTH + 1)), (err) => err instanceof AppError && err.code === 'bad_request')
    assert.deepEqual(parseJsonText(JSON.stringify({ text: '[{'.repeat(100) + '\\"[' })), { text: '[{'.repeat(100) + '\\"[' })
  })

  it('refuses a 1 MB body of open brackets as too deep, without building it', () => {
    assert.throws(() => parseJsonText('['.repeat(1 << 20)), /deeper than/)
    assert.throws(() => parseJsonText('{"a":'.repeat(1 << 18)), /deeper than/)
  })
})
