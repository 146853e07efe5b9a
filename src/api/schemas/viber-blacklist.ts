// Wire schemas of the Viber phone blacklist (API.md 2.10, 4.10): phones in as strings or numbers, in any of the
// forms clients send lists (COMPAT.md "Requests the server must accept" 7, 8); out as JSON integers.
import { Type } from '@sinclair/typebox'

const Phone = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Number()], {
  description: 'International number, with or without +, as a string or a JSON number',
})

const Phones = Type.Array(Phone, { description: 'Up to 10,000 numbers' })

export const ViberBlacklistAddBody = Type.Object({
  phones: Type.Array(Phone, { description: 'Up to 10,000 numbers; one that is not a valid international number refuses the call (422), storing none' }),
  // No NUL: PostgreSQL text refuses it.
  description: Type.Optional(Type.String({ maxLength: 1000, pattern: '^[^\\u0000]*$' })),
})

export const ViberBlacklistPhonesBody = Type.Object({ phones: Phones })

const int = () => Type.Integer()

export const ViberBlacklistAddResult = Type.Object({ result: Type.Boolean(), counters: Type.Object({ added: int(), exists: int() }) })

export const ViberBlacklistRemoveResult = Type.Object({ result: Type.Boolean(), deleted: Type.Integer({ description: 'How many of the numbers were on the blacklist' }) })

const ViberBlacklistEntry = Type.Object({
  id: int(),
  user_id: Type.Integer({ description: 'The account' }),
  phone: Type.Integer({ description: 'Digits of the international number' }),
  description: Type.String(),
  add_date: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
})

export const ViberBlacklistPage = Type.Object({
  data: Type.Object({ list: Type.Array(ViberBlacklistEntry, { description: 'Newest first' }), total: Type.Integer({ description: 'Entries in all' }) }),
})
