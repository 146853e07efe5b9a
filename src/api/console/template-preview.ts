// POST /console/template-preview: the console editor's unsaved HTML echoed back as a page of its own, so that its
// <iframe sandbox=""> shows it with its inline styles (a srcdoc frame inherits the console's style-src 'self', which
// refuses every style="…" and <style>). The editor posts a hidden form into the frame (a navigation can send no
// X-CSRF-Token header), so the CSRF token comes in the form body. Echoing a posted page is what an attacker would want
// on our origin, hence: the session cookie (SameSite=Strict: never sent on another site's post) is looked up before
// any body is read (no session: 401, and an anonymous client cannot make us read TIDINGS_BODY_LIMIT bytes), the form's
// csrf_token must match it (compared in constant time), and the answer carries the outbox body's policy: `sandbox` (no
// script, an opaque origin even when opened in a tab of its own), nothing fetched but data: images, framed by the
// console's origin alone. It reads and writes nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import * as consoleSessions from '../../services/accounts/console-sessions.js'
import type { Deps } from '../../services/types.js'
import { ErrorBody } from '../schemas/common.js'
import { csrfRefused, unauthorized } from '../auth.js'
import { sandboxedPageHeaders, sendSandboxedPage } from '../routes/outbox-body.js'
import { sessionCookie } from './session-cookie.js'

const PreviewForm = Type.Object({
  html: Type.String({ description: 'The HTML to show' }),
  // Optional here so that a missing token is refused as a wrong one (403), not as a malformed form.
  csrf_token: Type.Optional(Type.String({ description: "The session's CSRF token (a form cannot send the X-CSRF-Token header)" })),
})

export function consoleTemplatePreviewRoutes(deps: Deps) {
  const cookie = sessionCookie(deps.config)
  const signedIn = async (request: FastifyRequest) => {
    const sessionId = cookie.read(request.headers.cookie)
    const session = sessionId === undefined ? undefined : await consoleSessions.findSession(deps, sessionId)
    if (sessionId === undefined || !session) throw unauthorized()
    return sessionId
  }

  return async (app: FastifyInstance) => {
    app.addHook('onRequest', async (_request, reply) => void sandboxedPageHeaders(reply, false))

    app.post(
      '/console/template-preview',
      {
        config: { public: true },
        // As the template API's: its Base64 HTML is read up to TIDINGS_BODY_LIMIT.
        bodyLimit: deps.config.bodyLimitBytes,
        // Before the body is read: no session, no reading of up to TIDINGS_BODY_LIMIT bytes.
        onRequest: async (request) => void (await signedIn(request)),
        schema: {
          'x-tidings-console': true,
          tags: ['Console'],
          security: [],
          'x-tidings-html-page': true,
          summary: "Console: the editor's unsaved template HTML as a sandboxed page (for the editor's preview frame)",
          description:
            'A Tidings extension for the web console at /console; SendPulse has no such route. An application/x-www-form-urlencoded form with `html` and `csrf_token`, sent with the session cookie. The answer is text/html; charset=utf-8 with its own Content-Security-Policy (sandbox: no script, nothing fetched but data: images). Reads and writes nothing.',
          body: PreviewForm,
          response: { 200: Type.String({ description: 'text/html; charset=utf-8' }), 401: ErrorBody, 403: ErrorBody, 413: ErrorBody, 422: ErrorBody },
        },
      },
      async (request, reply) => {
        // onRequest found its session: the cookie is there.
        const sessionId = cookie.read(request.headers.cookie) ?? ''
        const { html, csrf_token: csrfToken } = request.body as { html: string; csrf_token?: string }
        // The same refusal as every other call's without its token.
        if (csrfToken === undefined || !consoleSessions.csrfTokenMatches(sessionId, csrfToken)) throw csrfRefused()
        return sendSandboxedPage(reply, html, false)
      },
    )
  }
}
