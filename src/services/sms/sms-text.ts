// A campaign's text for one number: the body with the number's variables (`{{name}}`, plain text, never
// HTML-escaped), transliterated when the campaign asked for it. Pricing, sending and the outbox all read it
// from here, so what is priced is what is sent.
import { compileTemplate } from '../../lib/render.js'
import { AppError } from '../errors.js'
import { transliterateForSms } from './transliteration.js'

export type SmsText = (variables: Record<string, unknown>) => string

export function smsTextOf(body: string, options: { transliterate: boolean }): SmsText {
  const finish = options.transliterate ? transliterateForSms : (text: string) => text
  if (!body.includes('{{')) {
    const text = finish(body)
    return () => text
  }
  const render = compileTemplate(body, { escape: false })
  if (render instanceof Error) throw new AppError('invalid', `Argument body is not a valid template: ${render.message}`)
  return (variables) => finish(render(variables))
}
