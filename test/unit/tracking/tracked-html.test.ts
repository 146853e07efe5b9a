// Campaign HTML made trackable once: link markers, UTM tags and the open pixel, Handlebars left working.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileTemplate } from '../../../src/lib/render.js'
import {
  LINK_MARKER_PREFIX,
  OPEN_MARKER,
  UNSUBSCRIBE_MARKER,
  linkMarkerVariables,
  prepareTrackedHtml,
} from '../../../src/tracking/tracked-html.js'

const PIXEL = `<img src="${OPEN_MARKER}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`
const clicksOnly = { trackClicks: true, trackOpens: false }

describe('prepareTrackedHtml', () => {
  it('replaces http(s) links with markers, one per distinct URL, keeping Handlebars in the stored link', () => {
    const html = '<p><a href="https://x.com/?u={{email}}">a</a> <A HREF=" HTTP://y.com/ ">b</A>' +
      ' <a class="c" href="https://x.com/?u={{email}}">again</a> <area shape="rect" href=\'https://z.com/\'></p>'
    const result = prepareTrackedHtml(html, clicksOnly)
    assert.deepEqual(result.links, ['https://x.com/?u={{email}}', 'HTTP://y.com/', 'https://z.com/'])
    assert.equal(result.html,
      '<p><a href="{{{__tidings_link_0}}}">a</a> <A HREF="{{{__tidings_link_1}}}">b</A>' +
      ' <a class="c" href="{{{__tidings_link_0}}}">again</a> <area shape="rect" href=\'{{{__tidings_link_2}}}\'></p>')
  })

  it('leaves mailto:, tel:, anchors, placeholders, opted-out and non-link hrefs alone', () => {
    const html = '<a href="mailto:a@b.c">m</a><a href="tel:+123">t</a><a href="#top">h</a>' +
      `<a href="${UNSUBSCRIBE_MARKER}">u</a><a href="{{unsubscribe_url}}">v</a>` +
      '<a data-tidings-notrack href="https://keep.me/">k</a><link rel="stylesheet" href="https://cdn.x/s.css"><a href>e</a>'
    const result = prepareTrackedHtml(html, { ...clicksOnly, utmCampaign: 'spring' })
    assert.deepEqual(result.links, [])
    assert.equal(result.html, html)
  })

  it('quotes an unquoted href it replaces, and only touches the first of two hrefs', () => {
    const result = prepareTrackedHtml('<a href=https://x.com/a title=x>a</a><a href="https://y.com" href="https://z.com">b</a>', clicksOnly)
    assert.equal(result.html, '<a href="{{{__tidings_link_0}}}" title=x>a</a><a href="{{{__tidings_link_1}}}" href="https://z.com">b</a>')
    assert.deepEqual(result.links, ['https://x.com/a', 'https://y.com'])
  })

  it('adds UTM tags before the fragment, keeping the existing query, unless the campaign is already named', () => {
    const html = '<a href="https://x.com/p?a=1&amp;b={{id}}#frag">1</a> <a href="https://x.com/">2</a>' +
      ' <a href="https://x.com/?utm_medium=social">3</a> <a href="https://x.com/?utm_campaign=mine#x">4</a>' +
      ' <a href="https://y.com/?">5</a> <a href="https://x.com/{{#if vip}}vip{{/if}}#{{anchor}}">6</a>'
    const result = prepareTrackedHtml(html, { trackClicks: false, trackOpens: false, utmCampaign: "May's {{sale}}" })
    const tags = 'utm_source=tidings&utm_medium=email&utm_campaign=May%27s%20%7B%7Bsale%7D%7D'
    assert.deepEqual(result.links, [
      `https://x.com/p?a=1&b={{id}}&${tags}#frag`,
      `https://x.com/?${tags}`,
      'https://x.com/?utm_medium=social&utm_source=tidings&utm_campaign=May%27s%20%7B%7Bsale%7D%7D',
      'https://x.com/?utm_campaign=mine#x',
      `https://y.com/?${tags}`,
      `https://x.com/{{#if vip}}vip{{/if}}?${tags}#{{anchor}}`,
    ])
    // Without click tracking the tags go into the HTML itself, `&` written as `&amp;` as an attribute wants.
    const encoded = tags.replaceAll('&', '&amp;')
    assert.equal(result.html,
      `<a href="https://x.com/p?a=1&amp;b={{id}}&amp;${encoded}#frag">1</a> <a href="https://x.com/?${encoded}">2</a>` +
      ' <a href="https://x.com/?utm_medium=social&amp;utm_source=tidings&amp;utm_campaign=May%27s%20%7B%7Bsale%7D%7D">3</a>' +
      ' <a href="https://x.com/?utm_campaign=mine#x">4</a>' +
      ` <a href="https://y.com/?${encoded}">5</a> <a href="https://x.com/{{#if vip}}vip{{/if}}?${encoded}#{{anchor}}">6</a>`)
  })

  it('tracks the UTM-tagged link when tracking clicks', () => {
    const result = prepareTrackedHtml('<a href="https://x.com/#a">x</a>', { ...clicksOnly, utmCampaign: 'c' })
    assert.equal(result.html, '<a href="{{{__tidings_link_0}}}">x</a>')
    assert.deepEqual(result.links, ['https://x.com/?utm_source=tidings&utm_medium=email&utm_campaign=c#a'])
  })

  it('leaves a link alone when an unquoted href cuts a Handlebars expression in two', () => {
    const html = '<a href=https://x.com/{{#if a}}p{{/if}}>x</a>'
    const result = prepareTrackedHtml(html, { ...clicksOnly, utmCampaign: 'c' })
    assert.equal(result.html, html)
    assert.deepEqual(result.links, [])
  })

  it('puts the open pixel just before </body>, or at the end without a body, and only once', () => {
    const opens = { trackClicks: false, trackOpens: true }
    const page = '<html><body><p>Hi</p><!-- </body> -->\n</BODY >\n</html>'
    const withPixel = prepareTrackedHtml(page, opens).html
    assert.equal(withPixel, `<html><body><p>Hi</p><!-- </body> -->\n${PIXEL}</BODY >\n</html>`)
    assert.equal(prepareTrackedHtml(withPixel, opens).html, withPixel)
    assert.equal(prepareTrackedHtml('<p>Hi {{name}}</p>', opens).html, `<p>Hi {{name}}</p>${PIXEL}`)
    assert.equal(prepareTrackedHtml(page, clicksOnly).html, page)
  })

  it('keeps the rest byte for byte and still compiles and renders with Handlebars', () => {
    const html = '<!DOCTYPE html>\n<html><head><style>a{color:red}</style></head><body>\n' +
      '<table><tr><td>Hi {{name}}</td></tr>{{#if vip}}<tr><td>{{{banner}}}</td></tr>{{/if}}</table>\n' +
      '<a href="https://shop.x/?u={{email}}" style="color:#00f">Shop</a> <a href="mailto:{{email}}">mail</a>\n' +
      `<a href="${UNSUBSCRIBE_MARKER}">unsubscribe</a>\n</body></html>`
    const { html: tracked, links } = prepareTrackedHtml(html, { trackClicks: true, trackOpens: true, utmCampaign: 'c' })
    assert.equal(tracked, html
      .replace('https://shop.x/?u={{email}}', '{{{__tidings_link_0}}}')
      .replace('</body>', `${PIXEL}</body>`))

    const render = compileTemplate(tracked)
    assert.ok(!(render instanceof Error))
    const variables = {
      name: 'Ann',
      email: 'ann@x.com',
      vip: true,
      banner: '<b>Sale</b>',
      __tidings_open: 'https://t.x/o/1',
      __tidings_unsubscribe: 'https://t.x/u/1',
      ...linkMarkerVariables(links.map((_, index) => `https://t.x/c/1?l=${index}&s=2`)),
    }
    const out = render(variables)
    assert.match(out, /<td>Hi Ann<\/td><\/tr><tr><td><b>Sale<\/b><\/td>/)
    assert.match(out, /<a href="https:\/\/t\.x\/c\/1\?l=0&amp;s=2" style="color:#00f">Shop<\/a> <a href="mailto:ann@x\.com">mail<\/a>/)
    assert.match(out, /<a href="https:\/\/t\.x\/u\/1">unsubscribe<\/a>/)
    assert.match(out, /<img src="https:\/\/t\.x\/o\/1" width="1"/)
    // The stored link renders per recipient too, before the redirect.
    const link = compileTemplate(links[0] ?? '')
    assert.ok(!(link instanceof Error))
    assert.equal(link(variables), 'https://shop.x/?u=ann@x.com&utm_source=tidings&utm_medium=email&utm_campaign=c')
  })
})

describe('linkMarkerVariables', () => {
  it('names each URL after its marker, escaped for the attribute it lands in', () => {
    assert.deepEqual(linkMarkerVariables(['https://t.x/c?a=1&b="2"', 'https://t.x/d']), {
      [`${LINK_MARKER_PREFIX}0`]: 'https://t.x/c?a=1&amp;b=&quot;2&quot;',
      [`${LINK_MARKER_PREFIX}1`]: 'https://t.x/d',
    })
  })
})
