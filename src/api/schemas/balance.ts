// Wire schemas of the balance routes (API.md 2.8, 4.8). Types follow COMPAT.md: `balance_currency` is a
// number; in the detailed form `main` and `bonus` are strings with two decimals, and `email`, `smtp`,
// `push` are objects or null (never []).
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
  smtp: Type.Null({ description: 'Tidings has no separate SMTP tariff' }),
  push: Type.Null({ description: 'Tidings has no push tariff' }),
})
