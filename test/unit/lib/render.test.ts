// Handlebars-compatible rendering of templates with contact variables.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileTemplate } from '../../../src/lib/render.js'

describe('compileTemplate', () => {
  it('puts variables in, HTML-escaped unless tripled, and leaves missing ones empty', () => {
    const render = compileTemplate('<p>Hi {{name}}, {{{html}}}, {{missing}}|{{#if vip}}VIP{{else}}regular{{/if}}</p>')
    assert.ok(!(render instanceof Error))
    assert.equal(render({ name: '<Ann & "Bo">', html: '<b>x</b>', vip: 1 }), '<p>Hi &lt;Ann &amp; &quot;Bo&quot;&gt;, <b>x</b>, |VIP</p>')
    assert.equal(render({ name: 'Cy' }), '<p>Hi Cy, , |regular</p>')
  })

  it('reads variable names with spaces and any script through the bracket form', () => {
    const render = compileTemplate('{{[имя клиента]}}')
    assert.ok(!(render instanceof Error))
    assert.equal(render({ 'имя клиента': 'Олена' }), 'Олена')
  })

  it('reports a template that does not parse instead of throwing', () => {
    const broken = compileTemplate('<p>{{#if x}}never closed</p>')
    assert.ok(broken instanceof Error)
    assert.match(broken.message, /Parse error on line 1/)
  })

  it('does not reach prototype properties', () => {
    const render = compileTemplate('{{constructor.name}}')
    assert.ok(!(render instanceof Error))
    assert.equal(render({}), '')
  })
})
