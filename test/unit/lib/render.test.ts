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

describe('compileTemplate and the service output', () => {
  /** Everything written to stdout and stderr (console.* included) while `run` runs. */
  function written(run: () => void): string {
    const chunks: string[] = []
    const streams = [process.stdout, process.stderr]
    const originals = streams.map((stream) => stream.write)
    for (const stream of streams) {
      stream.write = ((chunk: unknown) => {
        chunks.push(String(chunk))
        return true
      }) as typeof stream.write
    }
    try {
      run()
    } finally {
      streams.forEach((stream, i) => (stream.write = originals[i]!))
    }
    return chunks.join('')
  }

  it('renders {{log}} as nothing, so templates stored with it still send, and writes nothing to the service output', () => {
    const output = written(() => {
      const cases: [string, string][] = [
        ['a{{log "x"}}b', 'ab'],
        ['a{{log "secret" level="error"}}b', 'ab'],
        ['{{#if 1}}[{{log name}}]{{/if}}', '[]'],
        ['a{{log}}b', 'ab'],
        ['a{{#log "x"}}inside{{/log}}b', 'ab'],
      ]
      for (const [source, want] of cases) {
        const render = compileTemplate(source)
        assert.ok(!(render instanceof Error), `${source}: ${String(render)}`)
        assert.equal(render({ name: 'Ann' }), want, source)
      }
    })
    assert.equal(output, '')
  })

  it('keeps lookup and with to own properties, and writes nothing when a template reaches for others', () => {
    const output = written(() => {
      const cases: [string, string][] = [
        ['{{lookup this "constructor"}}|{{lookup this "__proto__"}}|{{lookup this "name"}}', '||Ann'],
        ['{{#with this}}{{toString}}{{valueOf}}{{__proto__}}{{name}}{{/with}}', 'Ann'],
        ['{{hasOwnProperty}}{{constructor.constructor}}{{__defineGetter__}}', ''],
      ]
      for (const [source, want] of cases) {
        const render = compileTemplate(source)
        assert.ok(!(render instanceof Error), source)
        assert.equal(render({ name: 'Ann' }), want, source)
      }
    })
    assert.equal(output, '')
  })
})
