// Puts a secret link into HTML an account wrote, only where the recipient has to click to follow it: the href
// of an `<a>`. The account's template is rendered with a random placeholder in the link's place; the real
// link then replaces only the placeholders that are an anchor's whole href. A mail client fetches images,
// fonts and stylesheets on delivery (Apple Mail Privacy Protection), so an `<img src="…?u={{link}}">` would
// hand the link to the account without the recipient doing anything.
//
// The template never sees the real link, so however it spells, slices or escapes its variable
// (`{{lookup link 0}}`), it can only spell the placeholder, which is worth nothing once the render is over.
import { randomBytes } from 'node:crypto'
import { ElementType, parseDocument } from 'htmlparser2'
import render from 'dom-serializer'
import { appendChild, findAll, findOne } from 'domutils'
import type { AnyNode, Element } from 'domhandler'
import { removeLinkReaders } from './link-readers.js'

/**
 * A fresh placeholder: 128 random bits, unguessable by the account whose template renders it. Shaped as a URL
 * of the reserved `.invalid` domain (RFC 2606) with nothing that HTML escaping changes, so it reaches the HTML
 * as it is through `{{…}}`, `{{{…}}}` and helpers that pass strings on.
 */
export function newLinkPlaceholder(): string {
  return `https://link.invalid/${randomBytes(16).toString('hex')}`
}

export interface AnchoredLink {
  /** Anchors whose whole href was the placeholder. */
  anchors: number
  /** The HTML with those anchors leading to `link`. */
  withLink(link: string): string
}

export interface AnchorOptions {
  /** What replaces the placeholder anywhere but an anchor's whole href: in text, other attributes, styles. */
  elsewhere: string
  /** HTML appended to the body when no anchor has the placeholder as its href: an anchor with the placeholder. */
  fallback: string
}

/**
 * Reads `html` (rendered with `placeholder` for the link) with htmlparser2, removes what could read a link's
 * target (link-readers.ts), and puts the link into the anchors whose whole href is the placeholder.
 */
export function anchorLink(html: string, placeholder: string, options: AnchorOptions): AnchoredLink {
  const document = parseDocument(html)
  removeLinkReaders(document)
  let anchors = placeholderAnchors(document.children, placeholder)
  if (anchors.length === 0) {
    const body = findOne((el) => el.name === 'body', document.children) ?? document
    for (const node of [...parseDocument(options.fallback).children]) appendChild(body, node)
    anchors = placeholderAnchors(document.children, placeholder)
  }
  for (const anchor of anchors) anchor.attribs.href = ''
  replaceEverywhere(document.children, placeholder, options.elsewhere)
  return {
    anchors: anchors.length,
    withLink(link) {
      for (const anchor of anchors) anchor.attribs.href = link
      // Every text and attribute value entity-encoded ('utf8': only & < > " and no-break spaces, the rest as it is).
      return render(document, { encodeEntities: 'utf8' })
    },
  }
}

/** The anchors whose href, leading and trailing whitespace aside (as browsers read it), is the placeholder. */
function placeholderAnchors(nodes: AnyNode[], placeholder: string): Element[] {
  return findAll((el) => el.name === 'a' && el.attribs.href?.trim() === placeholder, nodes)
}

function replaceEverywhere(nodes: AnyNode[], placeholder: string, replacement: string): void {
  for (const node of nodes) {
    if (node.type === ElementType.Text || node.type === ElementType.Directive) {
      node.data = node.data.replaceAll(placeholder, replacement)
    } else if (node.type === ElementType.Tag || node.type === ElementType.Style || node.type === ElementType.Script) {
      for (const [name, value] of Object.entries(node.attribs)) node.attribs[name] = value.replaceAll(placeholder, replacement)
      replaceEverywhere(node.children, placeholder, replacement)
    }
  }
}
