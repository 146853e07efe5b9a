// The unsubscribe page behind a campaign email's link, in the campaign's language.
import { escapeHtml } from '../lib/validator-parts.js'
import { buttonForm, messagePage, publicPageShell } from '../api/pages/message-page.js'

interface Texts {
  title: string
  question: (email: string) => string
  button: string
  done: string
}

const TEXTS: Record<string, Texts> = {
  en: { title: 'Unsubscribe', question: (e) => `Stop sending these emails to ${e}?`, button: 'Unsubscribe', done: 'You are unsubscribed: these emails will no longer be sent to you.' },
  ru: { title: 'Отписка', question: (e) => `Больше не присылать эти письма на ${e}?`, button: 'Отписаться', done: 'Вы отписались: эти письма больше не будут приходить.' },
  ua: { title: 'Відписка', question: (e) => `Більше не надсилати ці листи на ${e}?`, button: 'Відписатися', done: 'Ви відписалися: ці листи більше не надходитимуть.' },
  tr: { title: 'Abonelikten çık', question: (e) => `Bu e-postalar artık ${e} adresine gönderilmesin mi?`, button: 'Abonelikten çık', done: 'Abonelikten çıktınız: bu e-postalar artık size gönderilmeyecek.' },
  es: { title: 'Darse de baja', question: (e) => `¿Dejar de enviar estos correos a ${e}?`, button: 'Darse de baja', done: 'Te has dado de baja: ya no recibirás estos correos.' },
  pt: { title: 'Cancelar inscrição', question: (e) => `Deixar de enviar estes e-mails para ${e}?`, button: 'Cancelar inscrição', done: 'Sua inscrição foi cancelada: você não receberá mais estes e-mails.' },
}

/** `action`: the URL the button posts to, the page's own (its policy lets the form post there only). */
export function unsubscribePage(options: { lang: string; email: string; done: boolean; action: string }): string {
  const t = TEXTS[options.lang] ?? TEXTS.en!
  const e = escapeHtml
  const bodyHtml = options.done ? `<p>${e(t.done)}</p>` : `<p>${e(t.question(options.email))}</p>${buttonForm(options.action, t.button)}`
  return publicPageShell({ title: t.title, bodyHtml, lang: options.lang })
}

export function notFoundPage(): string {
  return messagePage('Link not valid', 'This link is not valid.')
}

export function expiredUnsubscribePage(): string {
  return messagePage('Link expired', 'This unsubscribe link has expired. Use the link in a more recent email from the sender, or reply to it and ask to be removed.')
}
