// The pages behind a double opt-in confirmation link. Opening the link only shows a button; pressing it (a
// POST) confirms. Mail scanners and link previewers fetch every link in an email with GET, so a GET that
// confirmed would confirm subscriptions nobody asked for.
import type { Confirmed, ConfirmationState } from '../../services/audience/contacts.js'
import { buttonForm, messagePage, publicPageShell } from './message-page.js'

export const CONFIRM_OUTCOMES: Record<Exclude<Confirmed | ConfirmationState, 'pending'>, { status: number; title: string; text: string }> = {
  confirmed: { status: 200, title: 'Subscription confirmed', text: 'Thank you: your subscription is confirmed.' },
  already_used: { status: 200, title: 'Link already used', text: 'This confirmation link has already been used.' },
  // 410 Gone: the link was real, and will not work again.
  expired: { status: 410, title: 'Link expired', text: 'This confirmation link has expired. Subscribe again to get a new one.' },
  unknown: { status: 404, title: 'Link not valid', text: 'This confirmation link is not valid, or the subscription no longer exists.' },
}

export function outcomePage(outcome: keyof typeof CONFIRM_OUTCOMES): string {
  const shown = CONFIRM_OUTCOMES[outcome]
  return messagePage(shown.title, shown.text)
}

/** The page a valid link opens: one button that posts to `action`, the link itself. */
export function confirmButtonPage(action: string): string {
  const bodyHtml = `<p>Press the button to confirm that you want these emails.</p>${buttonForm(action, 'Confirm subscription')}`
  return publicPageShell({ title: 'Confirm your subscription', bodyHtml })
}
