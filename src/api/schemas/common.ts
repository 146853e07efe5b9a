// Schemas shared by every resource: ids, paging, names, results and the SendPulse error body.
import { Type, type TSchema } from '@sinclair/typebox'

export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })

export const IdParams = Type.Object({ id: Id })

/** `limit` 0 (the Python SDK's default) means the default page; above the maximum means the maximum (COMPAT.md 13). */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
})

export function toPage(query: { limit?: number; offset?: number }, max: number, defaultLimit = max): { limit: number; offset: number } {
  const limit = query.limit === undefined || query.limit === 0 ? defaultLimit : Math.min(query.limit, max)
  return { limit, offset: query.offset ?? 0 }
}

/** A human-given name: no control characters (PostgreSQL refuses NUL; none belongs in a name). */
export const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f]*$' })

export const ResultTrue = Type.Object({ result: Type.Boolean() })

export const ErrorBody = Type.Object(
  { error_code: Type.Integer(), message: Type.String() },
  { description: 'SendPulse error body' },
)

/** Response schemas for a route: the 200 shape plus the error statuses it can answer. */
export function responses(ok: TSchema, ...errorStatuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = { 200: ok, 401: ErrorBody }
  for (const status of errorStatuses) out[status] = ErrorBody
  return out
}
