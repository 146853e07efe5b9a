// The bounded reader of PHP serialize() text: what PHP and the npm SDK write, and what an attacker could.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { serialize } from 'php-serialize'
import { MAX_DEPTH, readPhpSerialized } from '../../../src/lib/php-unserialize.js'

describe('readPhpSerialized', () => {
  it('reads lists, maps and every scalar PHP writes, strings by their UTF-8 byte length', () => {
    const contacts = [{ email: 'php@example.com', variables: { name: 'Ünïcode "quoted";}', score: 7, ratio: 1.5, vip: true, none: null, emoji: '😀' } }]
    assert.deepEqual(readPhpSerialized(serialize(contacts)), contacts)
    assert.deepEqual(readPhpSerialized('a:2:{i:0;s:4:"a";b";i:1;s:2:"é";}'), ['a";b', 'é'])
    assert.deepEqual(readPhpSerialized('a:2:{i:1;s:1:"b";i:0;s:1:"a";}'), { 0: 'a', 1: 'b' })
    assert.deepEqual(readPhpSerialized('a:1:{i:0;d:-2.5E+3;}'), [-2500])
  })

  it('reads a PHP stdClass object as a map, without its class', () => {
    assert.deepEqual(readPhpSerialized('a:1:{i:0;O:8:"stdClass":1:{s:5:"email";s:7:"a@b.com";}}'), [{ email: 'a@b.com' }])
  })

  it('refuses counts and lengths larger than the text, without looping over them', () => {
    assert.throws(() => readPhpSerialized('a:999999999:{i:0;N;}'), /more entries declared/)
    assert.throws(() => readPhpSerialized('a:1:{i:0;s:999999999:"abc";}'), /another length/)
    assert.throws(() => readPhpSerialized('a:1:{i:0;s:99999999999999999999:"abc";}'), /not a length/)
  })

  it(`refuses nesting deeper than ${MAX_DEPTH} levels, long before the stack runs out`, () => {
    const nested = (levels: number) => 'a:1:{i:0;'.repeat(levels) + 'N;' + '}'.repeat(levels)
    assert.ok(Array.isArray(readPhpSerialized(nested(MAX_DEPTH))))
    assert.throws(() => readPhpSerialized(nested(MAX_DEPTH + 1)), /nested deeper/)
    assert.throws(() => readPhpSerialized(nested(100_000)), /nested deeper/)
  })

  it('gives only values JSON can carry and never takes a __proto__ key as the prototype', () => {
    assert.throws(() => readPhpSerialized('a:1:{i:0;i:99999999999999999999;}'), /integer/)
    assert.throws(() => readPhpSerialized('a:1:{i:0;d:INF;}'), /finite/)
    const read = readPhpSerialized('a:2:{s:9:"__proto__";a:1:{s:5:"admin";b:1;}s:4:"name";s:1:"x";}') as Record<string, unknown>
    assert.equal(read.admin, undefined)
    assert.equal(Object.getPrototypeOf(read), Object.prototype)
    assert.deepEqual(read, { name: 'x' })
  })

  it('refuses what it does not read: class instances with their own format, references, trailing text', () => {
    for (const text of ['a:1:{i:0;C:3:"Foo":1:{x}}', 'a:2:{i:0;s:1:"a";i:1;r:1;}', 'a:0:{}garbage', 'a:1:{i:0;N;']) {
      assert.throws(() => readPhpSerialized(text), /Not PHP serialize\(\) data/, text)
    }
  })
})
