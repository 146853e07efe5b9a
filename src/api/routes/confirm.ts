// The public page behind the link of a double opt-in confirmation email: following it activates the contact.
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import validator from 'validator'
import * as contacts from '../../services/contacts.js'
import type { Deps } from '../../services/types.js'

const PAGES: Record<contacts.Confirmed, { status: number; title: string; text: string }> = {
  confirmed: { status: 200, title: 'Subscription confirmed', text: 'Thank you: your subscription is confirmed.' },
  already_used: { status: 200, title: 'Link already used', text: 'This confirmation link has already been used.' },
  unknown: { status: 404, title: 'Link not valid', text: 'This confirmation link is not valid, or the subscription no longer exists.' },
}

function page(title: string, text: string): string {
  const e = validator.escape
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(title)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222">
<h1 style="font-size:1.5rem">${e(title)}</h1><p>${e(text)}</p>
</body></html>
`
}

export function confirmRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    app.get(
      '/confirm/:token',
      {
        schema: { tags: ['Public pages'], summary: 'Confirm a double opt-in subscription (the link in the email)', params: Type.Object({ token: Type.String() }) },
        config: { public: true },
      },
      async (request, reply) => {
        const { token } = request.params as { token: string }
        const shown = PAGES[await contacts.confirmSubscription(deps, token)]
        return reply.status(shown.status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page(shown.title, shown.text))
      },
    )
  }
}
