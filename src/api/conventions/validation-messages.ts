// Turns schema validation failures into SendPulse's messages ("Argument bookName missing",
// "Argument limit must be integer", …: spec/sendpulse-openapi) carried by an AppError('invalid') → 422.
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { AppError } from '../../services/errors.js'

export function validationError(errors: FastifySchemaValidationError[], part: string): AppError {
  const first = errors[0]
  const message = first ? describe(first, part) : 'Invalid request'
  return new AppError('invalid', message)
}

function describe(error: FastifySchemaValidationError, part: string): string {
  const params = error.params as Record<string, unknown>
  const path = error.instancePath.split('/').filter(Boolean).join('.')
  if (error.keyword === 'required') return `Argument ${joinPath(path, String(params.missingProperty))} missing`
  if (path === '') return part === 'body' ? 'Request body must be a JSON object or a form' : 'Invalid request'
  // A bad item of a list is reported on the list, as SendPulse publishes it ("Argument tags is invalid").
  const item = path.split('.').findIndex((segment) => /^\d+$/.test(segment))
  if (item > 0) return `Argument ${path.split('.').slice(0, item).join('.')} is invalid`
  const argument = `Argument ${path}`
  switch (error.keyword) {
    case 'type':
      return `${argument} must be ${typeName(params.type)}`
    case 'minimum':
      return `${argument} must be at least ${String(params.limit)}`
    case 'maximum':
      return `${argument} may not be greater than ${String(params.limit)}`
    case 'minLength':
      return Number(params.limit) <= 1 ? `Argument ${path} missing` : `${argument} must be at least ${String(params.limit)} characters`
    case 'maxLength':
      return `${argument} may not be greater than ${String(params.limit)} characters`
    case 'maxItems':
      return `${argument} may not have more than ${String(params.limit)} items`
    case 'minItems':
      return `${argument} must have at least ${String(params.limit)} items`
    default:
      return `${argument} is invalid`
  }
}

function joinPath(path: string, property: string): string {
  return path ? `${path}.${property}` : property
}

function typeName(type: unknown): string {
  const name = Array.isArray(type) ? type.filter((t) => t !== 'null')[0] : type
  return name === 'object' ? 'an object' : String(name)
}
