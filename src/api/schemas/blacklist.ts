// Wire schemas of the email blacklist routes (API.md 2.7, 4.7).
import { Type } from '@sinclair/typebox'

const EncodedEmails = Type.String({
  minLength: 1,
  description: 'Base64 of a comma-separated list of addresses, e.g. Base64("a@example.com, b@example.com")',
})

export const AddBody = Type.Object({
  emails: EncodedEmails,
  // No NUL: PostgreSQL text refuses it.
  comment: Type.Optional(Type.String({ maxLength: 1000, pattern: '^[^\\u0000]*$' })),
})

export const RemoveBody = Type.Object({ emails: EncodedEmails })

export const Blacklist = Type.Array(Type.String(), { description: 'Blacklisted addresses, oldest first' })
