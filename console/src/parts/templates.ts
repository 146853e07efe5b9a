// What the template pages share: the API's template record (API.md 2.4), its Base64 body read and written as
// UTF-8, the hash routes of the pages, and the same-origin address of a system template's preview image.

export interface Template {
  id: string
  real_id: number
  lang: string
  name: string
  category: string
  created: string
  /** `me` or `system` */
  owner: string
  /** An image URL (SVG) for system templates; empty for own ones. */
  preview: string
  /** The HTML, Base64 (a Tidings extension). */
  body: string
}

/** The languages POST /template takes (src/services/email/templates.ts TEMPLATE_LANGS). */
export const TEMPLATE_LANGS = ['en', 'ru', 'ua', 'tr', 'es', 'pt'] as const

/** Base64 of the UTF-8 bytes (btoa alone takes only Latin-1: "Grüße" would throw). */
export function base64Of(text: string): string {
  return btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''))
}

export function textOfBase64(base64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)))
}

export type TemplateRoute = { kind: 'gallery' } | { kind: 'new'; from?: number } | { kind: 'open'; id: number }

/** #/templates, #/templates/new, #/templates/new?from=12 (a copy of template 12), #/templates/12. */
export function templateRouteOf(hash: string): TemplateRoute {
  const match = /^#\/templates\/(?:new(?:\?from=([1-9]\d{0,15}))?|([1-9]\d{0,15}))$/.exec(hash)
  if (!match) return { kind: 'gallery' }
  if (match[2] !== undefined) return { kind: 'open', id: Number(match[2]) }
  return match[1] === undefined ? { kind: 'new' } : { kind: 'new', from: Number(match[1]) }
}

/**
 * The preview image as a path of this origin, or undefined. The API gives an absolute URL built from the server's
 * public URL, which may name another host than the one the console was opened on (a proxy, localhost): the CSP's
 * img-src allows only this origin, and the console reaches the API on this origin anyway. Only the one route that
 * serves previews is taken, so a URL in the record can never make the console load anything else.
 */
export function previewPathOf(template: Template): string | undefined {
  const file = /\/template-previews\/([a-z0-9-]+\.svg)$/.exec(template.preview)?.[1]
  return file === undefined ? undefined : `/template-previews/${file}`
}
