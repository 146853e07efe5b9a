// Contacts prepared ahead of their transaction (on the add route's worker thread) are used only while the
// list's variables are as they were then; otherwise they are prepared again against the types now declared.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { columnsFor, prepareColumns, type PreparedItems } from '../../../src/services/audience/contact-input.js'

describe('contacts prepared ahead', () => {
  const items = [{ email: 'a@example.com', variables: { age: 'old', city: 'Kyiv' } }, { email: 'b@example.com', variables: { age: 30 } }]
  const ahead = (types: Map<string, string>): PreparedItems => ({ types, columns: prepareColumns(items, types), items: () => items })

  it('are used as they are while the types are the same', () => {
    const prepared = ahead(new Map([['city', 'string']]))
    assert.equal(columnsFor(prepared, new Map([['city', 'string']])), prepared.columns)
  })

  it('are prepared again when a variable was declared meanwhile: its type decides', () => {
    const prepared = ahead(new Map())
    assert.deepEqual(prepared.columns.rejected, [])
    const now = columnsFor(prepared, new Map([['age', 'number']]))
    assert.deepEqual(now.rejected.map((r) => r.reason), ['Variable "age" is of type number and accepts only numbers, got "old"'])
    assert.deepEqual(now.emails, ['b@example.com'])
    assert.deepEqual(now.newVariables, []) // the one contact with a city was refused
  })

  it('are prepared again when a type differs, even with as many variables', () => {
    const prepared = ahead(new Map([['age', 'string']]))
    assert.deepEqual(columnsFor(prepared, new Map([['age', 'date']])).emails, [])
  })

  it('come out as columns: the JSON of each contact\'s variables', () => {
    const columns = prepareColumns(['c@example.com', { email: 'd@example.com', variables: { Phone: '+380 63 123 4567', n: '7' } }], new Map([['n', 'number']]))
    assert.deepEqual(columns.emails, ['c@example.com', 'd@example.com'])
    assert.deepEqual(columns.phones, [null, '380631234567'])
    assert.deepEqual(columns.variables, ['{}', '{"n":7}'])
  })
})
