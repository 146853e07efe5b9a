// Mailing lists: API.md 4.1 (adding and managing contacts arrives with issue 8).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as addressbooks from '../../services/audience/addressbooks.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { IdParams, PageQuery, ResultTrue, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/addressbooks.js'

const MAX_PAGE = 100
const tags = ['Mailing lists']

/** API.md 3.1 */
const BOOK_STATUS_TEXT: Record<number, string> = {
  0: 'Active',
  1: 'Marked as deleted',
  3: "Awaiting the user's reply to a moderator's clarification question",
  4: 'Blocked by the service',
  5: 'Blocked by the daemon that transfers addresses into a campaign',
}

function toWireBook(book: addressbooks.Book) {
  return {
    id: book.id,
    name: book.name,
    all_email_qty: book.counts.all,
    active_email_qty: book.counts.active,
    inactive_email_qty: book.counts.all - book.counts.active,
    active_phones_quantity: book.numbers.active,
    exc_phones_quantity: book.numbers.excluded,
    creationdate: toWireDate(book.createdAt),
    status: book.status,
    status_explain: BOOK_STATUS_TEXT[book.status] ?? 'Unknown',
  }
}

function toWireCost(cost: addressbooks.BookCost) {
  const affordable = cost.priceMicros > 0 ? Math.floor(Math.max(cost.balanceMicros, 0) / cost.priceMicros) : cost.emails
  const totalMicros = cost.emails * cost.priceMicros
  return {
    cur: cost.currency,
    sent_emails_qty: cost.emails,
    overdraftAllEmailsPrice: totalMicros / 1e6,
    addressesDeltaFromBalance: affordable - cost.emails,
    // No tariff includes free emails yet: every email is paid from the balance.
    addressesDeltaFromTariff: -cost.emails,
    max_emails_per_task: affordable,
    result: cost.balanceMicros >= totalMicros,
  }
}

export function addressbookRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/addressbooks',
      { schema: { tags, summary: 'Create a mailing list', body: S.CreateBookBody, response: responses(S.BookCreated, 422) } },
      async (request) => ({ id: await addressbooks.createBook(deps, request.accountId, request.body.bookName) }),
    )

    app.get(
      '/addressbooks',
      { schema: { tags, summary: 'List mailing lists', querystring: PageQuery, response: responses(Type.Array(S.BookListItem), 422) } },
      async (request) => {
        const books = await addressbooks.listBooks(deps, request.accountId, toPage(request.query, MAX_PAGE))
        return books.map((b) => ({ ...toWireBook(b), new_phones_quantity: b.numbers.new }))
      },
    )

    app.get(
      '/addressbooks/:id',
      { schema: { tags, summary: 'Get a mailing list (an array of one record)', params: IdParams, response: responses(Type.Array(S.Book), 404, 422) } },
      async (request) => [toWireBook(await addressbooks.getBook(deps, request.accountId, request.params.id))],
    )

    app.put(
      '/addressbooks/:id',
      { schema: { tags, summary: 'Rename a mailing list', params: IdParams, body: S.RenameBookBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await addressbooks.renameBook(deps, request.accountId, request.params.id, request.body.name)
        return { result: true }
      },
    )

    app.delete(
      '/addressbooks/:id',
      { schema: { tags, summary: 'Delete a mailing list (marks it deleted, status 1)', params: IdParams, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await addressbooks.deleteBook(deps, request.accountId, request.params.id)
        return { result: true }
      },
    )

    app.get(
      '/addressbooks/:id/variables',
      { schema: { tags, summary: 'Variables of a mailing list', params: IdParams, response: responses(Type.Array(S.Variable), 404, 422) } },
      async (request) => addressbooks.listVariables(deps, request.accountId, request.params.id),
    )

    app.get(
      '/addressbooks/:id/emails/total',
      { schema: { tags, summary: 'Number of contacts in a mailing list', params: IdParams, querystring: S.TotalQuery, response: responses(S.Total, 404, 422) } },
      async (request) => ({ total: await addressbooks.countEmails(deps, request.accountId, request.params.id, request.query.active === true) }),
    )

    app.get(
      '/addressbooks/:id/cost',
      { schema: { tags, summary: 'Cost of a campaign to the mailing list', params: IdParams, response: responses(S.Cost, 404, 422) } },
      async (request) => toWireCost(await addressbooks.estimateCost(deps, request.accountId, request.params.id)),
    )

    app.get(
      '/addressbooks/:id/campaigns',
      { schema: { tags, summary: 'Campaigns sent to a mailing list', params: IdParams, querystring: PageQuery, response: responses(Type.Array(S.BookCampaign), 404, 422) } },
      async (request) => {
        const campaigns = await addressbooks.listBookCampaigns(deps, request.accountId, request.params.id, toPage(request.query, MAX_PAGE))
        return campaigns.map((c) => ({ task_id: c.id, task_name: c.name, task_status: c.status }))
      },
    )
  }
}
