// The account balance: API.md 4.8.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as balance from '../../services/accounts/balance.js'
import type { Deps } from '../../services/types.js'
import { formatMicros, microsToNumber } from '../../lib/money.js'
import { PageQuery, responses, toPage } from '../schemas/common.js'
import { listLedgerEntries } from '../../storage/repos/accounts.js'
import { toWireDate } from '../../lib/wire-date.js'
import { Type } from '@sinclair/typebox'
import * as S from '../schemas/balance.js'

const tags = ['Balance']

/** The largest page of ledger entries: the console shows 50 at a time. */
const MAX_LEDGER_PAGE = 100

const LedgerEntry = Type.Object({
  id: Type.Integer(),
  amount: Type.Number({ description: 'in the account currency, exact to the micro-unit, signed: credits and refunds positive, write-offs negative' }),
  kind: Type.String({ description: 'credit, write_off or refund' }),
  note: Type.Union([Type.String(), Type.Null()]),
  created: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
})

function toWireBalance(b: balance.Balance) {
  return { currency: b.currency, balance_currency: microsToNumber(b.micros) }
}

/**
 * Tidings sells no SMTP or push tariff, but clients decode `smtp` and `push` as objects of the published fields
 * (API.md 2.8, the OpenAPI file's DetailedBalanceResponse): "none", no end date, nothing left.
 */
const NO_SMTP_TARIFF = {
  tariff_name: 'none',
  end_date: null,
  auto_renew: 0,
  email_qty: 0,
  email_qty_left: 0,
  qty_per_hour: 0,
  traffic_limit: '0',
  traffic_limit_left: '0',
} as const
const NO_PUSH_TARIFF = { tariff_name: 'none', end_date: null, auto_renew: 0 } as const

function toWireDetail(d: balance.BalanceDetail) {
  return {
    balance: { main: formatMicros(d.mainMicros), bonus: formatMicros(d.bonusMicros), currency: d.currency },
    email: {
      tariff_name: d.plan,
      finished_time: null,
      emails_left: d.emailsLeft,
      maximum_subscribers: d.maxSubscribers,
      current_subscribers: d.currentSubscribers,
    },
    smtp: NO_SMTP_TARIFF,
    push: NO_PUSH_TARIFF,
  }
}

export function balanceRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/balance',
      { schema: { tags, summary: 'Balance in the account currency', response: responses(S.Balance) } },
      async (request) => toWireBalance(await balance.getBalance(deps, request.accountId)),
    )

    app.get(
      '/balance/:currency',
      { schema: { tags, summary: 'Balance in another currency (rates from the currencyRates setting)', params: S.CurrencyParams, response: responses(S.Balance, 422) } },
      async (request) => toWireBalance(await balance.getBalance(deps, request.accountId, request.params.currency)),
    )

    app.get(
      '/user/balance/detail',
      { schema: { tags, summary: 'Detailed balance with the email tariff', response: responses(S.BalanceDetail) } },
      async (request) => toWireDetail(await balance.getBalanceDetail(deps, request.accountId)),
    )

    // A Tidings extension (SendPulse has no such route): the entries GET /balance sums, for the console's Balance page.
    app.get(
      '/balance/ledger',
      {
        schema: {
          tags: ['Balance (Tidings extension)'],
          'x-tidings-extension': true,
          summary: "The account's ledger entries (credits, write-offs, refunds), newest first; at most 100 a page",
          querystring: PageQuery,
          response: responses(Type.Array(LedgerEntry), 422),
        },
      },
      async (request) =>
        (await listLedgerEntries(deps.db, request.accountId, toPage(request.query, MAX_LEDGER_PAGE))).map((e) => ({
          id: e.id,
          amount: microsToNumber(e.amountMicros),
          kind: e.kind,
          note: e.note,
          created: toWireDate(e.createdAt),
        })),
    )
  }
}
