// Wire schemas of the SMS campaign routes (API.md 2.11, 4.11, 4.11.1) with the types the Go SDK decodes
// (COMPAT.md "SMS and Viber" 1–5): integers for ids, statuses and phones, JSON numbers for money.
import { Type } from '@sinclair/typebox'
import { Id } from './common.js'

/** A number as the SDKs send it: a string (with or without `+`) or a JSON number. */
export const PhoneInput = Type.Union([Type.String({ maxLength: 32 }), Type.Number()])
export const Phones = Type.Array(PhoneInput, { maxItems: 10_000 })

/** `{"UA": "national"}`, a JSON string of it (Go) or `route[UA]=national` (PHP). */
const Route = Type.Object({}, { additionalProperties: Type.String({ maxLength: 20 }), description: 'Country code → `national` or `international`' })

const Text = Type.String({ maxLength: 10_000, pattern: '^[^\\u0000]*$' })

const CampaignFields = {
  sender: Type.String({ maxLength: 64, description: 'Sender ID: up to 11 letters and digits, or a number; active for the account' }),
  body: Text,
  route: Type.Optional(Route),
  date: Type.Optional(Type.String({ maxLength: 32, description: '`YYYY-MM-DD HH:MM:SS` UTC; empty, zero or past: now' })),
  emulate: Type.Optional(Type.Boolean({ description: 'Form and price the campaign, never send it, leave it out of the list' })),
  transliterate: Type.Optional(Type.Boolean({ description: 'Write characters GSM-7 lacks (Cyrillic, …) in Latin letters: 160 characters a part instead of 70' })),
  stat_link_tracking: Type.Optional(Type.Boolean({ description: 'Links become short tracked links; clicks are counted' })),
  stat_link_need_protocol: Type.Optional(Type.Boolean({ description: 'Short links start with https://' })),
}

export const CreateFromListBody = Type.Object({
  ...CampaignFields,
  addressBookId: Id,
  use_dynamic_list: Type.Optional(Type.Boolean()),
})

export const SendToNumbersBody = Type.Object({ ...CampaignFields, phones: Phones })

export const Created = Type.Object({ result: Type.Boolean(), campaign_id: Type.Integer() })
export const Sent = Type.Object({
  result: Type.Boolean(),
  campaign_id: Type.Integer(),
  counters: Type.Object({ exceptions: Type.Integer(), sends: Type.Integer() }),
})

export const CostQuery = Type.Object({
  transliterate: Type.Optional(Type.Boolean()),
  // npm requires an addressBookId argument even when numbers are priced: 0 (as null or "") means none (COMPAT.md "SMS and Viber" 8).
  addressBookId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The list to price; 0 or null: none, price `phones`' })),
  phones: Type.Optional(Phones),
  body: Type.Optional(Text),
  sender: Type.Optional(Type.String({ maxLength: 64 })),
  route: Type.Optional(Route),
})
export const Cost = Type.Object({ result: Type.Boolean(), data: Type.Object({ price: Type.Number(), currency: Type.String() }) })

export const ListQuery = Type.Object({
  dateFrom: Type.Optional(Type.String({ maxLength: 32 })),
  dateTo: Type.Optional(Type.String({ maxLength: 32 })),
})

const WireDate = Type.Union([Type.String(), Type.Null()])

export const ListedCampaign = Type.Object({
  id: Type.Integer(),
  address_book_id: Type.Integer({ description: '0 when numbers were given' }),
  company_price: Type.Number(),
  company_currency: Type.String(),
  send_date: WireDate,
  date_created: WireDate,
  sender_name: Type.String(),
  sender_mail_address: Type.String(),
  sender_mail_name: Type.String(),
})
export const CampaignList = Type.Object({ result: Type.Boolean(), data: Type.Array(ListedCampaign) })

export const NumberInfo = Type.Object({
  phone: Type.Integer(),
  status: Type.Integer({ description: '0 ready to send, 1 sent, 2 delivered, 12 not delivered (API.md 3.4)' }),
  status_explain: Type.String(),
  сountry_code: Type.String({ description: 'With a Cyrillic с, as SendPulse spells it (COMPAT.md "SMS and Viber" 5)' }),
  country_code: Type.String(),
  money_spent: Type.Number(),
})
export const CampaignInfo = Type.Object({
  result: Type.Boolean(),
  data: Type.Object({
    id: Type.Integer(),
    address_book_id: Type.Integer(),
    currency: Type.String(),
    company_price: Type.Number(),
    send_date: WireDate,
    date_created: WireDate,
    sender_name: Type.String(),
    task_phones_info: Type.Array(NumberInfo),
  }),
})

export const DeleteBody = Type.Object({ id: Id })
