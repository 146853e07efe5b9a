// A preview image of an HTML email: an SVG whose foreignObject holds the email's body (with its <style>),
// which browsers draw as an image of the real layout, no rendering engine needed on our side.
// foreignObject takes XHTML only, so the HTML is re-serialised as XML.
import { parseDocument } from 'htmlparser2'
import render from 'dom-serializer'
import { findAll, getChildren } from 'domutils'

const WIDTH = 640
const HEIGHT = 900

export function previewSvg(html: string): string {
  const document = parseDocument(html)
  const styles = findAll((el) => el.name === 'style', document.children)
  const body = findAll((el) => el.name === 'body', document.children)[0]
  const content = body ? getChildren(body) : document.children
  const xhtml = render([...styles, ...content], { xmlMode: true, selfClosingTags: true, decodeEntities: true })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
<rect width="100%" height="100%" fill="#ffffff"/>
<foreignObject x="0" y="0" width="${WIDTH}" height="${HEIGHT}"><div xmlns="http://www.w3.org/1999/xhtml" style="width:${WIDTH}px;">${xhtml}</div></foreignObject>
</svg>
`
}
