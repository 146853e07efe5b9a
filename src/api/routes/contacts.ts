// Contacts of a mailing list: API.md 4.1 (contact routes) and 4.1.1.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as contacts from '../../services/audience/contacts.js'
import { findContactsByPrefix } from '../../services/audience/contact-search.js'
import { AppError } from '../../services/errors.js'
import { variablesAsList } from '../../services/audience/contact-variables.js'
import type { Deps } from '../../services/types.js'
import { IdParams, PageQuery, ResultTrue, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/contacts.js'
import { phoneAsNumber, statusExplain, toListedEmail } from '../wire/contact.js'
import { contactItemsOf, prepareContactBodiesOffThread, rememberVariableTypes } from './add-contacts-body.js'

const MAX_PAGE = 100
/** Searches answer every match up to this many; limit and offset page beyond it. */
const MAX_SEARCH_PAGE = 1000
const tags = ['Mailing lists']

export function contactRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    // In a context of its own: its large JSON bodies are read on a worker thread (add-contacts-body.ts).
    await app.register(async (context) => {
      prepareContactBodiesOffThread(context, deps)
      context.withTypeProvider<TypeBoxTypeProvider>().post(
        '/addressbooks/:id/emails',
        {
          schema: { tags, summary: 'Add contacts to a mailing list (single or double opt-in)', params: IdParams, body: S.AddEmailsBody, response: responses(S.AddEmailsResult, 403, 404, 422) },
          config: { bareArrayField: 'emails' },
        },
        async (request) => {
          const { emails, tags: tagIds, confirmation, sender_email: senderEmail, message_lang: lang, template_id: templateId } = request.body
          const doubleOptIn = confirmation === undefined ? undefined : { confirmation, senderEmail, lang, templateId }
          const summary = await contacts.addContacts(deps, request.accountId, request.params.id, contactItemsOf(emails), { source: 'api', doubleOptIn, tagIds })
          rememberVariableTypes(deps, request.accountId, request.params.id, summary.variableTypes)
          // Skipped addresses are reported without changing the answer SDKs compare with {result: true}.
          const skipped = [...summary.rejected.map((r) => r.reason), ...summary.blacklisted.map((e) => `${e} is on the blacklist`)]
          return skipped.length > 0 ? { result: true, invalid_emails: skipped } : { result: true }
        },
      )
    })

    app.get(
      '/addressbooks/:id/emails',
      { schema: { tags, summary: 'Contacts of a mailing list, 100 at most per call', params: IdParams, querystring: S.ListEmailsQuery, response: responses(Type.Array(S.ListedEmail), 404, 422) } },
      async (request) => {
        const { active, not_active: notActive, order, email_prefix: prefix, after_email: afterEmail } = request.query
        if (prefix !== undefined) {
          if (active !== undefined || notActive !== undefined || order === 'desc') throw new AppError('invalid', 'email_prefix cannot be combined with active, not_active or order=desc')
          const found = await findContactsByPrefix(deps, request.accountId, request.params.id, { prefix, afterEmail }, toPage(request.query, MAX_PAGE))
          return found.map(toListedEmail)
        }
        if (afterEmail !== undefined) throw new AppError('invalid', 'after_email pages an email_prefix search: give email_prefix too')
        const found = await contacts.listContacts(deps, request.accountId, request.params.id, { active, notActive, order }, toPage(request.query, MAX_PAGE))
        return found.map(toListedEmail)
      },
    )

    app.delete(
      '/addressbooks/:id/emails',
      { schema: { tags, summary: 'Delete contacts from a mailing list (100 per call)', params: IdParams, body: S.EmailsBody, response: responses(ResultTrue, 404, 422) }, config: { bareArrayField: 'emails' } },
      async (request) => {
        await contacts.deleteContacts(deps, request.accountId, request.params.id, request.body.emails)
        return { result: true }
      },
    )

    app.post(
      '/addressbooks/:id/emails/unsubscribe',
      { schema: { tags, summary: 'Unsubscribe contacts of a mailing list (status 4)', params: IdParams, body: S.EmailsBody, response: responses(ResultTrue, 404, 422) }, config: { bareArrayField: 'emails' } },
      async (request) => {
        await contacts.unsubscribeContacts(deps, request.accountId, request.params.id, request.body.emails)
        return { result: true }
      },
    )

    app.get(
      '/addressbooks/:id/emails/:email',
      { schema: { tags, summary: 'One contact of a mailing list', params: S.EmailParams, response: responses(S.SingleEmail, 404, 422) } },
      async (request) => {
        const contact = await contacts.getContact(deps, request.accountId, request.params.id, request.params.email)
        return {
          email: contact.email,
          abook_id: String(contact.bookId),
          // A string here, "" when none, as the OpenAPI file types it; lists answer a number or null (COMPAT.md).
          phone: contact.phone ?? '',
          status: contact.status,
          status_explain: statusExplain(contact.status),
          variables: variablesAsList(contact.variables, contact.types),
        }
      },
    )

    app.post(
      '/addressbooks/:id/emails/variable',
      { schema: { tags, summary: 'Change variables of one contact', params: IdParams, body: S.ChangeVariablesBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await contacts.updateVariables(deps, request.accountId, request.params.id, request.body.email, request.body.variables)
        return { result: true }
      },
    )

    app.put(
      '/addressbooks/:id/phone',
      { schema: { tags, summary: 'Set the phone of a contact', params: IdParams, body: S.SetPhoneBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await contacts.setPhone(deps, request.accountId, request.params.id, request.body.email, request.body.phone)
        return { result: true }
      },
    )

    app.get(
      '/addressbooks/:id/variables/:variableName/:searchValue',
      {
        schema: {
          tags,
          summary: 'Contacts whose variable has a value (also reached as //variables/…)',
          params: S.VariableSearchParams,
          querystring: PageQuery,
          response: responses(Type.Array(S.FoundEmail), 404, 422),
        },
      },
      async (request) => {
        const { id, variableName, searchValue } = request.params
        const page = toPage(request.query, MAX_SEARCH_PAGE)
        const found = await contacts.findByVariable(deps, request.accountId, id, variableName, searchValue, page)
        return found.map((c) => ({ email: c.email, phone: phoneAsNumber(c.phone), status: c.status, status_explain: statusExplain(c.status) }))
      },
    )
  }
}
