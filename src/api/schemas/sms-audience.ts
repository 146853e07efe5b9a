// Wire schemas of the numbers of a list, the SMS blacklist and SMS sender IDs (API.md 2.11, 4.11), with the
// answer shapes the SDKs decode (COMPAT.md "SMS and Viber" 1–4): objects with `result: true`, counters of
// ints, phones as JSON integers.
import { Type } from '@sinclair/typebox'
import { Id } from './common.js'

const Phone = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Number()], {
  description: 'International number, with or without +, as a string or a JSON number',
})

/** Lists also arrive as JSON strings, PHP bracket forms and, in a query, Go's unquoted `[+7921…,380…]`. */
const Phones = Type.Array(Phone, { description: 'Numbers; invalid ones are counted in `exceptions` and never stored' })

const PhoneVariable = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.String({ description: 'string, number or date; the list\'s declared type wins; optional' })),
  value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()], { description: 'Empty or absent: removes the variable. A date may carry a time, which is dropped' })),
})

const Variables = Type.Array(Type.Union([PhoneVariable, Type.Array(PhoneVariable)]), {
  description: 'Variables as [{name, type, value}] or nested once, [[{…}]], as every SDK sends them',
})

export const AddNumbersBody = Type.Object({ addressBookId: Id, phones: Phones })

export const AddNumbersWithVariablesBody = Type.Object({
  addressBookId: Id,
  phones: Type.Object({}, { additionalProperties: Variables, description: 'Number → its variables, e.g. {"380631234567": [[{"name": "city", "type": "string", "value": "Kyiv"}]]}' }),
})

export const UpdateNumbersBody = Type.Object({ addressBookId: Id, phones: Phones, variables: Variables })

export const DeleteNumbersBody = Type.Object({ addressBookId: Id, phones: Phones })

export const NumberVariablesBody = Type.Object({ phone: Phone, variables: Variables })

export const NumberInfoParams = Type.Object({
  addressBookId: Id,
  phoneNumber: Type.String({ minLength: 1, maxLength: 64, description: 'With or without +; %2B is a +' }),
})

const Result = Type.Boolean()
const int = () => Type.Integer()

export const AddNumbersResult = Type.Object({ result: Result, counters: Type.Object({ added: int(), exceptions: int(), exists: int() }) })

export const UpdatedNumbersResult = Type.Object({ result: Result, counters: Type.Object({ updated: int() }) })

export const DeletedNumbersResult = Type.Object({ result: Result, counters: Type.Object({ deleted: int() }) })

export const NumberInfo = Type.Object({
  result: Result,
  data: Type.Object({
    status: Type.Integer({ description: 'API.md 3.2: 0 New, 1 Active, 2 awaiting confirmation' }),
    variables: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), { description: '{} when the number has none' }),
    added: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  }),
})

export const BlacklistAddBody = Type.Object({
  phones: Phones,
  // No NUL: PostgreSQL text refuses it.
  description: Type.Optional(Type.String({ maxLength: 1000, pattern: '^[^\\u0000]*$' })),
})

export const BlacklistPhonesBody = Type.Object({ phones: Phones })

export const BlacklistAddResult = Type.Object({
  result: Result,
  counters: Type.Object({ added: int(), exists: int(), exceptions: Type.Integer({ description: 'Invalid numbers (a Tidings addition)' }) }),
})

export const BlacklistRemoveResult = Type.Object({ result: Result, counters: Type.Object({ removed: int() }) })

const BlacklistEntry = Type.Object({
  phone: Type.Integer({ description: 'Digits of the international number' }),
  description: Type.String(),
  add_date: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
})

export const BlacklistEntries = Type.Object({ result: Result, data: Type.Array(BlacklistEntry) })

export const SmsSender = Type.Object({
  id: Type.Integer(),
  sender: Type.String(),
  country: Type.String({ description: '"" when the sender is not tied to one country' }),
  country_code: Type.String({ description: '"" when the sender is not tied to one country' }),
  status: Type.Integer({ description: '0 In moderation, 1 Active, 2 Rejected' }),
  status_explain: Type.String(),
})
