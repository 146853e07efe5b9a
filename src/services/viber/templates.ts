// Texts of system Viber messages (message_type 3, API.md 4.10.1 and 7): the operator registers them for an
// account (`tidings viber templates add`) and approves them; a system message must equal an approved one.
import * as templatesRepo from '../../storage/repos/viber-templates.js'
import { AppError } from '../errors.js'
import { getAccount } from '../accounts/accounts.js'
import type { Deps } from '../types.js'

const { VIBER_TEMPLATE_STATUS } = templatesRepo
export { VIBER_TEMPLATE_STATUS }
export type ViberTemplate = templatesRepo.ViberTemplateRow

/** API.md 8: a Viber message is up to 1000 characters; a template is the whole of one. */
const MAX_TEMPLATE_CHARACTERS = 1000

export async function registerViberTemplate(deps: Deps, accountId: number, rawText: string): Promise<number> {
  if ((await getAccount(deps, accountId)).deletedAt !== null) throw new AppError('not_found', `account ${accountId} not found`)
  const text = rawText.trim()
  if (text === '') throw new AppError('invalid', 'The template text must not be blank')
  // Characters as people count them: an emoji is one.
  if ([...text].length > MAX_TEMPLATE_CHARACTERS) throw new AppError('invalid', `The template text must be at most ${MAX_TEMPLATE_CHARACTERS} characters`)
  // PostgreSQL text refuses NUL; line breaks and tabs belong in a message.
  if (/\u0000/.test(text)) throw new AppError('invalid', 'The template text must not hold NUL characters')
  const existing = await templatesRepo.findViberTemplateByText(deps.db, accountId, text)
  if (existing) throw new AppError('conflict', `The account already has this template (id ${existing.id})`)
  return templatesRepo.insertViberTemplate(deps.db, { accountId, text, now: deps.now() })
}

export async function approveViberTemplate(deps: Deps, id: number): Promise<void> {
  if (!(await templatesRepo.setViberTemplateStatus(deps.db, id, VIBER_TEMPLATE_STATUS.approved, deps.now()))) throw new AppError('not_found', `Viber template ${id} not found`)
}

export async function listViberTemplates(deps: Deps, accountId?: number): Promise<ViberTemplate[]> {
  return templatesRepo.listViberTemplates(deps.db, accountId)
}

/**
 * Resolves when `text` (trimmed, as templates are stored) equals an approved template of the account, character
 * for character; otherwise a 4xx naming `message`.
 */
export async function requireApprovedTemplate(deps: Deps, accountId: number, text: string): Promise<void> {
  const trimmed = text.trim()
  // A NUL cannot be in a template (PostgreSQL would refuse to compare it).
  if (trimmed !== '' && !trimmed.includes('\u0000') && (await templatesRepo.findViberTemplateByText(deps.db, accountId, trimmed, VIBER_TEMPLATE_STATUS.approved))) return
  throw new AppError('invalid', 'Argument message: a system message (message_type 3) must equal the text of an approved template')
}
