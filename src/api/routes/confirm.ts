// The public pages behind the link of a double opt-in confirmation email: GET shows a button, its POST activates
// the contact (confirm-page.ts says why). An expired link (TIDINGS_LINK_TTL_DAYS) answers 410 and changes nothing.
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import * as contacts from '../../services/audience/contacts.js'
import { confirmationUrl } from '../../services/audience/confirmation-email.js'
import type { Deps } from '../../services/types.js'
import { CONFIRM_OUTCOMES, confirmButtonPage, outcomePage } from '../pages/confirm-page.js'
import { sendPage } from '../pages/public-page.js'

const tags = ['Public pages']
const params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })

export function confirmRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const config = { public: true }

    app.get('/confirm/:token', { schema: { tags, summary: 'Double opt-in confirmation page (the link in the email): a button, nothing confirmed yet', params }, config }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const state = await contacts.confirmationState(deps, token)
      if (state !== 'pending') return sendPage(reply, CONFIRM_OUTCOMES[state].status, outcomePage(state))
      const action = confirmationUrl(deps.config.publicUrl, token)
      return sendPage(reply, 200, confirmButtonPage(action), { formAction: action })
    })

    app.post('/confirm/:token', { schema: { tags, summary: 'Confirm a double opt-in subscription (the button of the page)', params }, config }, async (request, reply) => {
      const outcome = await contacts.confirmSubscription(deps, (request.params as { token: string }).token)
      return sendPage(reply, CONFIRM_OUTCOMES[outcome].status, outcomePage(outcome))
    })
  }
}
