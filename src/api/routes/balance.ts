// The account balance: API.md 4.8.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as balance from '../../services/accounts/balance.js'
import type { Deps } from '../../services/types.js'
import { formatMicros, microsToNumber } from '../../lib/money.js'
import { responses } from '../schemas/common.js'
import * as S from '../schemas/balance.js'

const tags = ['Balance']

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
  }
}
