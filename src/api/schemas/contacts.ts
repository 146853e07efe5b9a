// Wire schemas of the contact routes of a mailing list (API.md 2.2, 4.1, 4.1.1).
import { Type } from '@sinclair/typebox'
import { Id, PageQuery } from './common.js'

const EmailList = Type.Array(Type.Any(), { description: 'Email addresses (a list, a JSON string or a PHP serialize() string)' })

export const AddEmailsBody = Type.Object({
  emails: Type.Array(Type.Any(), {
    description:
      'Address strings, or {email, variables} objects (variables: an object of name to value; `Phone` sets the phone). ' +
      'Also accepted as a JSON string or a PHP serialize() string.',
  }),
  tags: Type.Optional(Type.Array(Type.Integer(), { description: 'IDs of existing tags (Pro plan)' })),
  confirmation: Type.Optional(Type.String({ description: '`force` for double opt-in' })),
  sender_email: Type.Optional(Type.String({ description: 'Double opt-in: an activated sender of the account' })),
  template_id: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'Double opt-in: confirmation email template' })),
  message_lang: Type.Optional(Type.String({ description: 'Double opt-in: en, ru, ua, tr, es or pt' })),
})

export const AddEmailsResult = Type.Object({
  result: Type.Boolean(),
  invalid_emails: Type.Optional(Type.Array(Type.String(), { description: 'Tidings extension: items skipped, with the reason' })),
})

export const EmailsBody = Type.Object({ emails: EmailList })

export const ListEmailsQuery = Type.Object({
  ...PageQuery.properties,
  active: Type.Optional(Type.Boolean({ description: 'Only Active and New contacts' })),
  not_active: Type.Optional(Type.Boolean({ description: 'Only contacts in other statuses' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  email_prefix: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description:
        'Tidings extension: only contacts whose address starts with this text, letters in any case, in address order (one index range scan on a list of any size). Not with active, not_active or order=desc.',
    }),
  ),
  after_email: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description: 'Tidings extension, with email_prefix: the last address of the page before; the page starts after it (keyset paging, as fast at any depth as offset is on the first page).',
    }),
  ),
})

const Phone = Type.Union([Type.Integer(), Type.Null()], { description: 'International number without +, or null' })

export const ListedEmail = Type.Object({
  email: Type.String(),
  status: Type.Integer(),
  status_explain: Type.String(),
  phone: Phone,
  variables: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
})

export const VariableValue = Type.Object({ name: Type.String(), type: Type.String(), value: Type.String() })

export const SingleEmail = Type.Object({
  email: Type.String(),
  abook_id: Type.String(),
  phone: Type.String({ description: 'Digits, or "" when the contact has no phone' }),
  status: Type.Integer(),
  status_explain: Type.String(),
  variables: Type.Array(VariableValue),
})

export const EmailParams = Type.Object({ id: Id, email: Type.String({ minLength: 1, maxLength: 320 }) })

export const ChangeVariablesBody = Type.Object({
  email: Type.String(),
  variables: Type.Any({ description: 'A list of {name, value}, or an object of name to value' }),
})

export const SetPhoneBody = Type.Object({
  email: Type.String(),
  phone: Type.Union([Type.String(), Type.Integer()]),
})

export const VariableSearchParams = Type.Object({
  id: Id,
  variableName: Type.String({ minLength: 1 }),
  searchValue: Type.String({ minLength: 1 }),
})

export const FoundEmail = Type.Object({
  email: Type.String(),
  phone: Phone,
  status: Type.Integer(),
  status_explain: Type.String(),
})
