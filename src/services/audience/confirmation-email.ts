// The double opt-in confirmation email (API.md 4.1.1): its default wording in each `message_lang`, the signed
// link that confirms one contact, and queueing one email per contact in the outbox. The link carries when it was
// issued and works for TIDINGS_LINK_TTL_DAYS; the account is shown the email with the link hidden. An account's
// own template (`template_id`) gets the link only as the href of its anchors, so that no fetch on delivery leaks it.
import type { Kysely } from 'kysely'
import { escapeHtml } from '../../lib/validator-parts.js'
import { signIssuedToken, verifyIssuedToken } from '../../tracking/signed-token.js'
import { textFromHtml } from '../../lib/html-text.js'
import { anchorLink, newLinkPlaceholder } from '../../lib/anchored-link.js'
import type { Render } from '../../lib/render.js'
import { OUTBOX_KIND, type EmailContent } from '../../storage/repos/outbox.js'
import type { Database } from '../../storage/tables.js'
import { HIDDEN, queueServiceEmails, type Mailbox, type ServiceEmail } from '../email/outbox.js'
import { signingKey, verifyingKeys } from '../../tracking/signing-key.js'
import { isLinkExpired } from '../../tracking/message-links.js'
import type { Deps } from '../types.js'

export const CONFIRMATION_LANGS = ['en', 'ru', 'ua', 'tr', 'es', 'pt'] as const
export type ConfirmationLang = (typeof CONFIRMATION_LANGS)[number]

const PURPOSE = 'confirm'

interface Wording {
  /** The HTML `lang`: Ukrainian is `uk` (ISO 639-1); `ua` is SendPulse's name for it. */
  htmlLang: string
  subject: (book: string) => string
  greeting: string
  request: (book: string, sender: string) => string
  button: string
  orOpen: string
  ignore: string
}

const WORDING: Record<ConfirmationLang, Wording> = {
  en: {
    htmlLang: 'en',
    subject: (book) => `Please confirm your subscription to “${book}”`,
    greeting: 'Hello,',
    request: (book, sender) => `Please confirm your subscription to “${book}” from ${sender}.`,
    button: 'Confirm subscription',
    orOpen: 'Or open this link:',
    ignore: 'If you did not subscribe, simply ignore this email.',
  },
  ru: {
    htmlLang: 'ru',
    subject: (book) => `Подтвердите подписку на «${book}»`,
    greeting: 'Здравствуйте!',
    request: (book, sender) => `Пожалуйста, подтвердите подписку на рассылку «${book}» от ${sender}.`,
    button: 'Подтвердить подписку',
    orOpen: 'Или откройте эту ссылку:',
    ignore: 'Если вы не подписывались, просто проигнорируйте это письмо.',
  },
  ua: {
    htmlLang: 'uk',
    subject: (book) => `Підтвердьте підписку на «${book}»`,
    greeting: 'Вітаємо!',
    request: (book, sender) => `Будь ласка, підтвердьте підписку на розсилку «${book}» від ${sender}.`,
    button: 'Підтвердити підписку',
    orOpen: 'Або відкрийте це посилання:',
    ignore: 'Якщо ви не підписувалися, просто проігноруйте цей лист.',
  },
  tr: {
    htmlLang: 'tr',
    subject: (book) => `“${book}” aboneliğinizi onaylayın`,
    greeting: 'Merhaba,',
    request: (book, sender) => `Lütfen ${sender} tarafından gönderilen “${book}” listesine aboneliğinizi onaylayın.`,
    button: 'Aboneliği onayla',
    orOpen: 'Ya da bu bağlantıyı açın:',
    ignore: 'Abone olmadıysanız bu e-postayı dikkate almayın.',
  },
  es: {
    htmlLang: 'es',
    subject: (book) => `Confirma tu suscripción a «${book}»`,
    greeting: '¡Hola!',
    request: (book, sender) => `Por favor, confirma tu suscripción a «${book}» de ${sender}.`,
    button: 'Confirmar suscripción',
    orOpen: 'O abre este enlace:',
    ignore: 'Si no te suscribiste, simplemente ignora este correo.',
  },
  pt: {
    htmlLang: 'pt',
    subject: (book) => `Confirme a sua inscrição em “${book}”`,
    greeting: 'Olá!',
    request: (book, sender) => `Por favor, confirme a sua inscrição em “${book}” de ${sender}.`,
    button: 'Confirmar inscrição',
    orOpen: 'Ou abra este link:',
    ignore: 'Se não se inscreveu, basta ignorar este e-mail.',
  },
}

export interface ConfirmationContent {
  lang: ConfirmationLang
  bookName: string
  senderName: string
  link: string
}

/** The default confirmation email in `lang`; every inserted value is HTML-escaped in the HTML part. */
export function confirmationEmail(content: ConfirmationContent): { subject: string; html: string; text: string } {
  const w = WORDING[content.lang]
  const e = escapeHtml
  const link = e(content.link)
  const text = [w.greeting, '', w.request(content.bookName, content.senderName), '', `${w.button}: ${content.link}`, '', w.ignore, ''].join('\n')
  const html = `<!doctype html>
<html lang="${w.htmlLang}"><head><meta charset="utf-8"><title>${e(w.subject(content.bookName))}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#222">
<p>${w.greeting}</p>
<p>${w.request(e(content.bookName), e(content.senderName))}</p>
<p><a href="${link}" style="display:inline-block;padding:12px 24px;background:#1a73e8;color:#ffffff;text-decoration:none;border-radius:4px">${w.button}</a></p>
<p style="font-size:13px;color:#555">${w.orOpen}<br><a href="${link}">${link}</a></p>
<p style="font-size:13px;color:#555">${w.ignore}</p>
</body></html>
`
  // A subject is one header line: a line break in a list name must not start another header.
  return { subject: w.subject(content.bookName).replace(/[\r\n]+/g, ' '), html, text }
}

type TokenDeps = Pick<Deps, 'config' | 'db' | 'now'>

/** The public link that confirms the contact's subscription, issued now; pass `db` when inside a transaction. */
export async function confirmationLink(deps: TokenDeps, contactId: number, db?: Kysely<Database>): Promise<string> {
  return confirmationUrl(deps.config.publicUrl, signIssuedToken(await signingKey(deps, db), PURPOSE, String(contactId), deps.now()))
}

/** The confirmation page of a token: where its link leads, and where the page's button posts. */
export function confirmationUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/confirm/${token}`
}

export interface ConfirmationToken {
  contactId: number
  /**
   * Issued more than TIDINGS_LINK_TTL_DAYS ago, or before links carried their issue time: such a link must not
   * give consent (it may have been forwarded, leaked or found in an old mailbox long after it was asked for).
   */
  expired: boolean
}

/** The contact a confirmation token was signed for; undefined for a tampered or foreign token. */
export async function readConfirmationToken(deps: TokenDeps, token: string): Promise<ConfirmationToken | undefined> {
  const signed = verifyIssuedToken(await verifyingKeys(deps), PURPOSE, token)
  if (signed === undefined || !/^[1-9][0-9]{0,15}$/.test(signed.payload)) return undefined
  const contactId = Number(signed.payload)
  if (!Number.isSafeInteger(contactId)) return undefined
  return { contactId, expired: signed.issuedAtMs === undefined || isLinkExpired(deps.config, signed.issuedAtMs, deps.now()) }
}

export interface Confirmations {
  accountId: number
  bookName: string
  sender: Mailbox
  lang: ConfirmationLang
  contacts: readonly { id: number; email: string; variables?: Record<string, unknown> }[]
  /** The account's confirmation template (`template_id`), compiled; the default email when absent. */
  template?: Render
}

/** The variable a confirmation template puts its link with: `<a href="{{confirmation_link}}">`. */
const CONFIRMATION_LINK_VARIABLE = 'confirmation_link'

/** One contact's confirmation email: as it is sent, and the copy the account is shown (its outbox). */
type SentAndShown = EmailContent & { shown: EmailContent }

/**
 * The confirmation email from the account's template, the contact's variables rendered in. The link goes only
 * into anchors whose whole href is `{{confirmation_link}}` (anchored-link.ts): anywhere else (an image, a
 * style, the text) a mail client could fetch it on delivery and hand it to the account, which could then
 * confirm an address it does not control; there it reads [hidden]. A template without such an anchor still
 * gets one, in the default wording: a confirmation email must confirm.
 */
function fromTemplate(render: Render, content: ConfirmationContent, variables: Record<string, unknown>): SentAndShown {
  const placeholder = newLinkPlaceholder()
  const html = render({ ...variables, [CONFIRMATION_LINK_VARIABLE]: placeholder })
  const fallback = `<p><a href="${placeholder}">${WORDING[content.lang].button}</a></p>`
  const anchored = anchorLink(html, placeholder, { elsewhere: HIDDEN, fallback })
  const { subject } = confirmationEmail(content)
  const email = (link: string): EmailContent => {
    const withLink = anchored.withLink(link)
    return { subject, html: withLink, text: textFromHtml(withLink) }
  }
  return { ...email(content.link), shown: email(HIDDEN) }
}

/** The default confirmation email, sent and shown: the link in both its anchors and as text (our own HTML). */
function fromDefault(content: ConfirmationContent): SentAndShown {
  return { ...confirmationEmail(content), shown: confirmationEmail({ ...content, link: HIDDEN }) }
}

/**
 * Queues one confirmation email per contact, from the sender; `db` may be the caller's transaction. The copy the
 * account is shown is the same email with [hidden] for the link.
 */
export async function queueConfirmations(db: Kysely<Database>, deps: TokenDeps, batch: Confirmations): Promise<void> {
  const key = await signingKey(deps, db)
  const now = deps.now()
  const emails: ServiceEmail[] = batch.contacts.map((contact) => {
    const link = confirmationUrl(deps.config.publicUrl, signIssuedToken(key, PURPOSE, String(contact.id), now))
    const content = { lang: batch.lang, bookName: batch.bookName, senderName: batch.sender.name, link }
    const email = batch.template ? fromTemplate(batch.template, content, contact.variables ?? {}) : fromDefault(content)
    return { accountId: batch.accountId, kind: OUTBOX_KIND.confirmation, from: batch.sender, to: contact.email, ...email }
  })
  await queueServiceEmails(db, emails, now)
}
