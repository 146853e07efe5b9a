// Wire schemas of the tag routes (API.md 2.6, 4.6).
import { Type } from '@sinclair/typebox'
import { Id, Name } from './common.js'

/** A hexadecimal colour, `#rrggbb` or `#rgb`. */
const Color = Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: '#rrggbb or #rgb' })

export const TagBody = Type.Object({ name: Name, color: Color })

/** Tag ids; the list may also arrive as a JSON or serialize() string or as index keys (conventions/normalize.ts). */
const TagIds = Type.Array(Id, { minItems: 1, maxItems: 1000 })

export const PinEmailBody = Type.Object({ email: Type.String({ maxLength: 320 }), tags: TagIds })

export const PinPhoneBody = Type.Object({ phone: Type.Union([Type.String({ maxLength: 32 }), Type.Number()]), tags: TagIds })

export const Tag = Type.Object({ color: Type.String(), id: Type.Integer(), name: Type.String() })

export const TagList = Type.Object({ tags: Type.Array(Tag), user_id: Type.Integer(), version: Type.String() })

const queueFields = {
  success: Type.Boolean(),
  failure: Type.Boolean(),
  code: Type.String(),
  description: Type.String(),
  http_code: Type.Integer(),
  queue_id: Type.String({ description: 'Identifier of the queued change' }),
}

/** The answer of a pin or unpin: the change is queued, not applied yet. */
export const Queued = Type.Object(queueFields)

/** The answer of create, update and delete also carries user_id and version. */
export const QueuedWithVersion = Type.Object({ ...queueFields, user_id: Type.Integer(), version: Type.String() })
