// Reads the body of POST /campaigns (API.md 4.2.1) into what a campaign is made of: its HTML, lists, sending
// time, attachments and tracking choices. Each rule that fails names the argument (COMPAT.md: a clear 4xx).
import { decodeBase64Text } from '../../lib/base64.js'
import { isAmpDocument } from '../../lib/amp-document.js'
import { GO_ZERO_DATE } from '../../lib/wire-date.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import type { Attachment } from '../../storage/repos/campaigns.js'
import { getLiveBook } from '../audience/addressbooks.js'
import { AppError } from '../errors.js'
import { getTemplate } from './templates.js'
import type { Deps } from '../types.js'

export interface CreateCampaignInput {
  sender_name: string
  sender_email: string
  subject: string
  body?: string
  template_id?: string | number
  list_id?: number | number[]
  segment_id?: number
  is_test?: boolean
  send_date?: string
  name?: string
  use_dynamic_list?: boolean
  attachments?: Record<string, unknown>
  attachments_binary?: Record<string, unknown>
  type?: string
  body_amp?: string
  stats?: { clicks?: boolean; opens?: boolean; utm_campaign?: string }
}

export const MAX_LISTS = 10
export const MAX_ATTACHMENTS = 5

const invalid = (message: string) => new AppError('invalid', message)

/** The HTML and language of a campaign: its Base64 `body`, or the template it names. */
export async function contentOf(deps: Deps, accountId: number, input: { body?: string; template_id?: string | number }): Promise<{ html: string; templateId: number | null; lang: string }> {
  if (input.body !== undefined) {
    const html = decodeBase64Text(input.body)
    if (html === undefined || html.trim() === '') throw invalid('Argument body must be the HTML of the email, Base64-encoded')
    return { html, templateId: null, lang: 'en' }
  }
  if (input.template_id !== undefined) {
    const template = await getTemplate(deps, accountId, input.template_id)
    return { html: template.body, templateId: template.realId, lang: template.lang }
  }
  throw new AppError('invalid', 'Argument body or template_id is required: give the HTML (Base64) or a template id', { publishedCode: 13 })
}

/** The lists a campaign goes to: live lists of the account, at most 10, one for a test. */
export async function listsOf(deps: Deps, accountId: number, input: Pick<CreateCampaignInput, 'list_id' | 'segment_id' | 'is_test'>): Promise<number[]> {
  if (input.segment_id !== undefined) throw new AppError('not_found', 'Segment not found: Tidings has no segments yet; send to a list_id instead')
  if (input.list_id === undefined) throw new AppError('invalid', 'Argument list_id or segment_id is required', { publishedCode: 11 })
  const ids = [...new Set(Array.isArray(input.list_id) ? input.list_id : [input.list_id])]
  if (ids.length === 0) throw new AppError('invalid', 'Argument list_id or segment_id is required', { publishedCode: 11 })
  if (ids.length > MAX_LISTS) throw invalid(`Argument list_id may hold at most ${MAX_LISTS} lists`)
  if (input.is_test && ids.length > 1) throw invalid('Argument list_id must be one list for a test campaign')
  for (const id of ids) await getLiveBook(deps, accountId, id)
  return ids
}

/** `YYYY-MM-DD HH:MM:SS`, read as UTC (the account's time zone: COMPAT.md 9); never in the past. */
export function sendTimeOf(sendDate: string | undefined, now: number): { sendAt: number; scheduled: boolean } {
  if (sendDate === undefined || sendDate === GO_ZERO_DATE) return { sendAt: now, scheduled: false }
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(sendDate.trim())
  const at = match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +(match[6] ?? 0)) : NaN
  if (!match || new Date(at).getUTCDate() !== +match[3]! || +match[4]! > 23 || +match[5]! > 59 || +(match[6] ?? 0) > 59) {
    throw invalid('Argument send_date must be a date and time as YYYY-MM-DD HH:MM:SS')
  }
  // A minute of slack: the caller's clock and ours differ, and "now" must not fail as "in the past".
  if (at < now - 60_000) throw invalid('Argument send_date must not be earlier than the current date and time')
  return at <= now ? { sendAt: now, scheduled: false } : { sendAt: at, scheduled: true }
}

/** Both attachment fields, as Base64 files: `attachments` holds text, `attachments_binary` Base64. */
export function attachmentsOf(input: Pick<CreateCampaignInput, 'attachments' | 'attachments_binary'>): Attachment[] {
  const out: Attachment[] = []
  for (const [field, binary] of [['attachments', false], ['attachments_binary', true]] as const) {
    const files = Object.entries(input[field] ?? {})
    if (files.length > MAX_ATTACHMENTS) throw invalid(`Argument ${field} may hold at most ${MAX_ATTACHMENTS} files`)
    for (const [filename, content] of files) {
      // Names go into MIME headers: no path separators, quotes or control characters.
      if (filename.trim() === '' || /[\\/"\u0000-\u001f\u007f]/.test(filename)) throw invalid(`Argument ${field} has an invalid file name ${JSON.stringify(filename)}`)
      if (typeof content !== 'string') throw invalid(`Argument ${field}: the content of ${filename} must be a string`)
      if (binary) {
        const compact = content.replace(/\s+/g, '')
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw invalid(`Argument attachments_binary: ${filename} is not Base64`)
        out.push({ filename, content: Buffer.from(compact, 'base64').toString('base64') })
      } else {
        out.push({ filename, content: Buffer.from(content, 'utf8').toString('base64') })
      }
    }
  }
  return out
}

/** The AMP body, only for accounts the operator allowed it for. */
export async function ampOf(deps: Deps, accountId: number, bodyAmp: string | undefined): Promise<string | null> {
  if (bodyAmp === undefined) return null
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account?.ampAllowed) throw new AppError('forbidden', 'AMP emails need approval: ask the operator to allow them (tidings accounts amp ID on)')
  const amp = decodeBase64Text(bodyAmp)
  if (amp === undefined || !isAmpDocument(amp)) throw invalid('Argument body_amp must be an AMP for Email document (<html ⚡4email>), Base64-encoded')
  return amp
}

export function draftOf(type: string | undefined): boolean {
  if (type === undefined) return false
  if (type === 'draft') return true
  throw invalid('Argument type may only be "draft"')
}
