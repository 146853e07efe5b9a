// Wire schemas of the mailing-list routes (API.md 2.1, 4.1).
import { Type } from '@sinclair/typebox'
import { Name } from './common.js'

export const CreateBookBody = Type.Object({ bookName: Name })

export const RenameBookBody = Type.Object({ name: Name })

const bookFields = {
  id: Type.Integer(),
  name: Type.String(),
  all_email_qty: Type.Integer(),
  active_email_qty: Type.Integer(),
  inactive_email_qty: Type.Integer(),
  active_phones_quantity: Type.Integer(),
  exc_phones_quantity: Type.Integer(),
  creationdate: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  status: Type.Integer(),
  status_explain: Type.String(),
}

export const Book = Type.Object(bookFields)

/** The list response also carries new_phones_quantity (API.md 2.1). */
export const BookListItem = Type.Object({ ...bookFields, new_phones_quantity: Type.Integer() })

export const BookCreated = Type.Object({ id: Type.Integer() })

export const Variable = Type.Object({ name: Type.String(), type: Type.String() })

export const TotalQuery = Type.Object({ active: Type.Optional(Type.Boolean()) })

export const Total = Type.Object({ total: Type.Integer() })

export const Cost = Type.Object({
  cur: Type.String(),
  sent_emails_qty: Type.Integer(),
  overdraftAllEmailsPrice: Type.Number(),
  addressesDeltaFromBalance: Type.Integer(),
  addressesDeltaFromTariff: Type.Integer(),
  max_emails_per_task: Type.Integer(),
  result: Type.Boolean(),
})

export const BookCampaign = Type.Object({ task_id: Type.Integer(), task_name: Type.String(), task_status: Type.Integer() })
