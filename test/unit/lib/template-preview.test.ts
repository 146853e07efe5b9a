// Preview images of templates: well-formed SVG that carries the email's body and styles as XHTML.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { XMLValidator } from 'fast-xml-parser'
import { previewSvg } from '../../../src/lib/template-preview.js'
import { SYSTEM_TEMPLATES } from '../../../src/storage/seeds/system-templates.js'

describe('previewSvg', () => {
  it('turns each system template into well-formed SVG holding its text and styles', () => {
    assert.ok(SYSTEM_TEMPLATES.length >= 3)
    for (const template of SYSTEM_TEMPLATES) {
      const svg = previewSvg(template.html)
      assert.equal(XMLValidator.validate(svg), true, `${template.slug} is well-formed XML`)
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
      assert.match(svg, /<foreignObject[^>]*><div xmlns="http:\/\/www\.w3\.org\/1999\/xhtml"/)
      assert.match(svg, /@media \(max-width: 620px\)/, 'the responsive styles come along')
      assert.ok(!svg.includes('<meta'), 'only the body and styles, not the head')
    }
  })

  it('closes void elements and escapes text, so sloppy HTML still gives XML', () => {
    const svg = previewSvg('<p>A & B<br><img src="x.png"></p><p>unclosed')
    assert.equal(XMLValidator.validate(svg), true)
    assert.match(svg, /A &amp; B<br\/>/)
  })
})
