// Wire schemas of the Viber campaign routes (API.md 2.10, 4.10, 4.10.1) with the types the Go SDK decodes
// (COMPAT.md "SMS and Viber" 2, 4, 5, 11): integers for ids and phones, null for what was not given.
import { Type } from '@sinclair/typebox'
import { Id, PageQuery } from './common.js'
import { Phones } from './sms-campaigns.js'

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, pattern: '^[^\\u0000]*$', ...(description ? { description } : {}) })
/** 0 is the Go SDK's "not given" (COMPAT.md "SMS and Viber" 11): the rule that reads it says what is missing. */
const Whole = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })

const CampaignFields = {
  task_name: Type.Optional(Text(255)),
  message_type: Type.Optional(Whole('2 promo, 3 system (its text must equal an approved template)')),
  sender_id: Type.Optional(Whole('An active Viber sender name of the account (GET /viber/senders)')),
  message_live_time: Type.Optional(Whole('Seconds, 60 to 86400: not delivered by then, the SMS instead goes out (resend_sms)')),
  send_date: Type.Optional(Text(32, '`now` or `YYYY-MM-DD HH:MM:SS` UTC; empty, zero or past: now')),
  sent_date: Type.Optional(Text(32, 'The Go SDK\'s name for send_date')),
  address_book: Type.Optional(Whole('A list whose numbers get the message; 0: none, use `recipients`')),
  recipients: Type.Optional(Phones),
  message: Type.Optional(Text(10_000, 'Up to 1000 characters; may be left out for an image-only promo')),
  stretch_time: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Hours (0 to 5, fractions allowed) the sending is spread over evenly' })),
  additional: Type.Optional(
    Type.Object({
      button: Type.Optional(Type.Object({ text: Type.Optional(Text(1000)), link: Type.Optional(Text(10_000)) })),
      image: Type.Optional(Type.Object({ link: Type.Optional(Text(10_000)) })),
      resend_sms: Type.Optional(
        Type.Object({
          status: Type.Optional(Type.Boolean()),
          sms_text: Type.Optional(Text(10_000)),
          sms_sender_name: Type.Optional(Text(64, 'An active SMS sender ID of the account')),
        }),
      ),
    }),
  ),
}

export const CreateBody = Type.Object(CampaignFields)

export const UpdateBody = Type.Object({
  main_task_id: Id,
  ...CampaignFields,
  button_text: Type.Optional(Text(1000)),
  button_link: Type.Optional(Text(10_000)),
  image_link: Type.Optional(Text(10_000)),
})

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()])
const WireDate = Nullable(Type.String())

export const CreatedData = Type.Object({
  address_book_id: Nullable(Type.Integer()),
  button_link: Nullable(Type.String()),
  button_text: Nullable(Type.String()),
  image_link: Nullable(Type.String()),
  message: Type.String(),
  message_live_time: Type.String({ description: 'A string here, as SendPulse answers it' }),
  message_type: Type.Integer(),
  resend_sms: Type.Integer({ description: '1 when an SMS goes where Viber does not deliver' }),
  send_date: WireDate,
  sender_id: Type.Integer(),
  sms_sender_name: Nullable(Type.String()),
  sms_text: Nullable(Type.String()),
  stretch_time: Type.Number(),
  task_id: Type.Integer(),
  task_name: Type.String(),
})
export const Created = Type.Object({ result: Type.Boolean(), data: CreatedData })

const ListedFields = {
  id: Type.Integer(),
  name: Type.String(),
  message: Type.String(),
  button_text: Nullable(Type.String()),
  button_link: Nullable(Type.String()),
  image_link: Nullable(Type.String()),
  address_book: Nullable(Type.Integer()),
  sender_name: Type.String(),
  sender_id: Type.Integer(),
  message_live_time: Type.Integer(),
  send_date: WireDate,
  status: Type.String({ description: 'moderation, scheduled, sending, sent, canceled or rejected' }),
  created: WireDate,
}

export const ListedCampaign = Type.Object({ ...ListedFields, address_book_id: Nullable(Type.Integer()) })
export const CampaignList = Type.Array(ListedCampaign)

const Counts = (description: string) => Type.Integer({ description })
export const Statistics = Type.Object({
  ...ListedFields,
  address_book_ids: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
  sent_date: WireDate,
  stretch_time: Type.Number(),
  resend_sms: Type.Boolean(),
  resend_sms_status: Type.Union([Type.Integer(), Type.Null()], { description: 'null: resend_sms off; 0 no SMS needed so far; 1 SMS being sent; 2 every SMS sent' }),
  resend_sms_statistic: Type.Union([
    Type.Object({ total: Counts('SMS sent instead'), queued: Counts('Not yet sent'), sent: Counts('Sent, no receipt yet'), delivered: Counts('Delivered'), undelivered: Counts('Not delivered or refused') }),
    Type.Null(),
  ]),
  statistic: Type.Object({
    sent: Counts('Messages the provider took'),
    delivered: Counts('Delivered (read and clicked included)'),
    read: Counts('Read (clicked included)'),
    redirected: Counts('Button followed'),
    undelivered: Counts('Not delivered, or not within their live time'),
    errors: Counts('Refused by the provider'),
  }),
})

export const RecipientsQuery = PageQuery
export const Recipients = Type.Object({
  task_id: Type.Integer(),
  recipients: Type.Array(
    Type.Object({
      phone: Type.Integer(),
      address_book_id: Nullable(Type.Integer()),
      status: Type.Union([Type.String(), Type.Null()], { description: 'API.md 3.5; null while not yet sent' }),
      send_date: WireDate,
      sent_date: WireDate,
      price: Type.Number(),
      currency: Type.String(),
      last_update: WireDate,
    }),
  ),
})
