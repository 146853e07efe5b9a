// Wire schemas of the sender routes (API.md 2.5, 4.4).
import { Type } from '@sinclair/typebox'
import { Name } from './common.js'

/** An address as sent; services/email/senders.ts checks and normalises it (an invalid one names `email`). */
const Email = Type.String({ minLength: 1, maxLength: 320 })

export const AddSenderBody = Type.Object({ email: Email, name: Name })

export const DeleteSenderBody = Type.Object({ email: Email })

/** The address comes unescaped in the path (`/senders/a@b.com/code`, COMPAT.md 10) or percent-encoded. */
export const SenderParams = Type.Object({ email: Email })

/** Form values and the npm SDK send the code as a string; a JSON number is taken as well. */
export const ActivateSenderBody = Type.Object({
  code: Type.Union([Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Integer({ minimum: 0 })]),
})

export const SenderStatusText = { active: 'Active', inactive: 'Not active' } as const

export const Sender = Type.Object({
  email: Type.String(),
  name: Type.String(),
  status: Type.String({ description: '`Active` once activated with the emailed code, `Not active` before' }),
  is_allowed_for_smtp: Type.Boolean({ description: 'Always true: every sender may also be used for SMTP' }),
})

export const SenderCodeResult = Type.Object({ result: Type.Boolean(), email: Type.String() })
