// Wire schemas of the balance routes (API.md 2.8, 4.8). Types follow COMPAT.md: `balance_currency` is a
// number; in the detailed form `main` and `bonus` are strings with two decimals, and `email`, `smtp`,
// `push` are objects of the published fields (never null or []).
import { Type } from '@sinclair/typebox'

export const CurrencyParams = Type.Object({
  currency: Type.String({ maxLength: 16, description: 'A configured 3-letter currency code, any case (usd, USD)' }),
})

export const Balance = Type.Object({
  currency: Type.String(),
  balance_currency: Type.Number({ description: 'Exact to the micro-unit (1e-6)' }),
})

export const BalanceDetail = Type.Object({
  balance: Type.Object({
    main: Type.String({ description: 'Two decimals, e.g. "9.36"' }),
    bonus: Type.String({ description: 'Always "0.00": Tidings has no bonus balance' }),
    currency: Type.String(),
  }),
  email: Type.Object({
    tariff_name: Type.String({ description: 'The account plan: free, standard or pro' }),
    finished_time: Type.Null({ description: 'Plans do not expire' }),
    emails_left: Type.Integer({ description: 'Emails the balance pays for at the configured price' }),
    maximum_subscribers: Type.Integer(),
    current_subscribers: Type.Integer({ description: 'Distinct addresses in the lists not marked as deleted' }),
  }),
  smtp: Type.Object(
    {
      tariff_name: Type.String(),
      end_date: Type.Null(),
      auto_renew: Type.Integer(),
      email_qty: Type.Integer(),
      email_qty_left: Type.Integer(),
      qty_per_hour: Type.Integer(),
      traffic_limit: Type.String(),
      traffic_limit_left: Type.String(),
    },
    { description: 'Tidings has no separate SMTP tariff: "none", with nothing left' },
  ),
  push: Type.Object(
    { tariff_name: Type.String(), end_date: Type.Null(), auto_renew: Type.Integer() },
    { description: 'Tidings has no push tariff: "none"' },
  ),
})
