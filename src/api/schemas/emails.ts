// Wire schemas of the routes of an address across lists (API.md 4.5).
import { Type } from '@sinclair/typebox'
import { VariableValue } from './contacts.js'

export const EmailPathParams = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }) })

export const EmailsListBody = Type.Object({
  emails: Type.Array(Type.Any(), { description: 'Addresses: a list, a bare JSON array body, or a form with index keys' }),
})

export const EmailInBook = Type.Object({
  book_id: Type.Integer(),
  email: Type.String(),
  status: Type.Integer(),
  status_explain: Type.String(),
  variables: Type.Array(VariableValue),
})

export const EmailInBookShort = Type.Object({
  book_id: Type.Integer(),
  status: Type.Integer(),
  variables: Type.Array(VariableValue),
})

export const EmailsInfo = Type.Record(Type.String(), Type.Array(EmailInBookShort), { description: 'Keyed by address; {} when none matched' })

export const EmailDetail = Type.Object({
  list_name: Type.String(),
  list_id: Type.Integer(),
  add_date: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  source: Type.String({ description: 'api, import or form' }),
})

export const AddressStatistics = Type.Object({
  statistic: Type.Object({ sent: Type.Integer(), open: Type.Integer(), link: Type.Integer() }),
  blacklist: Type.Boolean(),
  addressbooks: Type.Array(Type.Object({ id: Type.Integer(), address_book_name: Type.String() })),
})

/** The published key is spelled `adressbooks` (COMPAT.md: odd names are kept). */
export const AddressesStatistics = Type.Record(
  Type.String(),
  Type.Object({
    sent: Type.Integer(),
    open: Type.Integer(),
    link: Type.Integer(),
    adressbooks: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    blacklist: Type.Boolean(),
  }),
  { description: 'Keyed by address' },
)
