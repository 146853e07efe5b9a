// The wire's date format and ASCII-only JSON, built the fast way, give what the plain way gives.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { toWireDate } from '../../../src/lib/wire-date.js'
import { escapeNonAscii, stringifyAscii } from '../../../src/lib/ascii-json.js'

const viaIso = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

describe('wire formats', () => {
  it('formats dates as YYYY-MM-DD HH:MM:SS UTC, as toISOString does, at every year and edge', () => {
    const edges = [0, 1, 999, Date.UTC(1000, 0, 1), Date.UTC(999, 11, 31, 23, 59, 59), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1), -1, Date.UTC(2024, 1, 29, 9, 5, 7)]
    const spread = Array.from({ length: 2000 }, (_, i) => i * 1_234_567_891_011 - 40_000_000_000_000)
    for (const ms of [...edges, ...spread]) assert.equal(toWireDate(ms), viaIso(ms), String(ms))
    assert.equal(toWireDate(Date.UTC(2026, 10, 24, 9, 0, 0)), '2026-11-24 09:00:00')
    assert.throws(() => toWireDate(Number.NaN), RangeError)
  })

  it('escapes every character above U+007F and nothing below', () => {
    const ascii = JSON.stringify({ text: 'plain \u007f ~ "quoted" \\ slash' })
    assert.equal(escapeNonAscii(ascii), ascii)
    assert.equal(stringifyAscii({ name: 'Café \u0080 Ünïcødé 😀' }), '{"name":"Caf\\u00e9 \\u0080 \\u00dcn\\u00efc\\u00f8d\\u00e9 \\ud83d\\ude00"}')
    assert.deepEqual(JSON.parse(stringifyAscii({ name: 'Café 😀' })), { name: 'Café 😀' })
  })
})
