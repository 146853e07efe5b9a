// Email templates (API.md 2.4, 4.3): the account's own, created from Base64 HTML, edited in the language
// they were created in, found by real id, by string id or by slug; and the system templates.
import { randomUUID } from 'node:crypto'
import slugify from '@sindresorhus/slugify'
import * as templatesRepo from '../../storage/repos/templates.js'
import { isUniqueViolation } from '../../storage/db.js'
import { decodeBase64Text } from '../../lib/base64.js'
import { toWireDate } from '../../lib/wire-date.js'
import { compileTemplate } from '../../lib/render.js'
import { previewSvg } from '../../lib/template-preview.js'
import { AppError } from '../errors.js'
import type { Deps, Page } from '../types.js'

export const TEMPLATE_LANGS = ['en', 'ru', 'ua', 'tr', 'es', 'pt'] as const
const DEFAULT_LANG = 'en'

export type Template = templatesRepo.TemplateRow

/** A client's reference to a template: its real id (digits, also sent as a string by Go) or its string id. */
function parseRef(ref: string | number): { realId?: number; publicId?: string } {
  const text = String(ref).trim()
  return /^\d{1,15}$/.test(text) ? { realId: Number(text) } : { publicId: text }
}

function htmlOf(body: string): string {
  const html = decodeBase64Text(body)
  if (html === undefined || html.trim() === '') throw new AppError('invalid', 'Argument body is invalid string')
  return html
}

function checkLang(lang: string | undefined): string {
  if (lang === undefined) return DEFAULT_LANG
  if (!TEMPLATE_LANGS.includes(lang as (typeof TEMPLATE_LANGS)[number])) {
    throw new AppError('invalid', `Argument lang is invalid: use one of ${TEMPLATE_LANGS.join(', ')}`)
  }
  return lang
}

export async function createTemplate(deps: Deps, accountId: number, input: { name?: string; body: string; lang?: string }): Promise<number> {
  const html = htmlOf(input.body)
  const lang = checkLang(input.lang)
  const now = deps.now()
  const name = input.name ?? `Template ${toWireDate(now)}`
  try {
    return await templatesRepo.createTemplate(deps.db, {
      accountId,
      publicId: newPublicId(),
      name,
      nameSlug: await freeSlug(deps, accountId, name),
      lang,
      body: html,
      now,
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('invalid', 'Template with such name already exist', { publishedCode: 573, cause: err })
    throw err
  }
}

/** New HTML for an own template, under a new string id (API.md 2.4); the language must stay the same. */
export async function editTemplate(deps: Deps, accountId: number, ref: string | number, input: { body: string; lang?: string }): Promise<void> {
  const html = htmlOf(input.body)
  const template = await templatesRepo.findReadableTemplate(deps.db, accountId, parseRef(ref))
  if (!template || template.accountId === null) throw new AppError('not_found', 'Template not found', { publishedCode: 31 })
  if (input.lang !== undefined && input.lang !== template.lang) {
    throw new AppError('invalid', `Argument lang must be the language the template was created in (${template.lang})`)
  }
  await templatesRepo.replaceTemplateBody(deps.db, { accountId, realId: template.realId, publicId: newPublicId(), body: html, now: deps.now() })
}

export async function getTemplate(deps: Deps, accountId: number, ref: string | number): Promise<Template> {
  const template = await templatesRepo.findReadableTemplate(deps.db, accountId, parseRef(ref))
  if (!template) throw new AppError('not_found', 'Template not found', { publishedCode: 290 })
  return template
}

export async function getTemplateBySlug(deps: Deps, accountId: number, slug: string): Promise<Template> {
  const template = await templatesRepo.findTemplateBySlug(deps.db, accountId, slug)
  if (!template) throw new AppError('not_found', 'Template not found', { publishedCode: 290 })
  return template
}

/** `owner: 'me'`: the account's own templates; otherwise the system templates (API.md 4.3). */
export async function listTemplates(deps: Deps, accountId: number, ownOnly: boolean, page: Page): Promise<Template[]> {
  return templatesRepo.listTemplates(deps.db, ownOnly ? { accountId } : 'system', page)
}

function newPublicId(): string {
  return randomUUID().replaceAll('-', '')
}

/** A slug of the name no other own template has: `name`, then `name-2`, `name-3`, … */
async function freeSlug(deps: Deps, accountId: number, name: string): Promise<string> {
  const base = slugify(name) || 'template'
  for (let n = 1; n < 100; n++) {
    const slug = n === 1 ? base : `${base}-${n}`
    if (!(await templatesRepo.slugTaken(deps.db, accountId, slug))) return slug
  }
  return `${base}-${newPublicId().slice(0, 8)}`
}

/** What a preview shows in place of a contact's variables. */
const PREVIEW_VARIABLES = { name: 'Alex', unsubscribe_url: '#', permalink: '#' }

/** The preview image (SVG) of a system template, by slug; undefined when there is none. */
export async function systemTemplatePreview(deps: Deps, slug: string): Promise<string | undefined> {
  const template = await templatesRepo.findSystemTemplate(deps.db, slug)
  if (!template) return undefined
  const render = compileTemplate(template.body)
  return previewSvg(render instanceof Error ? template.body : render(PREVIEW_VARIABLES))
}

/** Where the preview image of a template is; system templates only, for now. */
export function previewUrl(deps: Deps, template: Template): string {
  return template.accountId === null ? `${deps.config.publicUrl.replace(/\/+$/, '')}/template-previews/${template.nameSlug}.svg` : ''
}
