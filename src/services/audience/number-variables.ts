// Variables of a list's numbers (API.md 2.11 "Phone variable", 4.11), typed by the same rules and the same
// declared types as the variables of email contacts (contact-variables.ts). Pure: no storage.
import { isIndexKeyed } from '../../lib/index-keyed.js'
import { AppError } from '../errors.js'
import { coerceToType, inferVariableType, isPhoneVariable, scalarValue, variableNameProblem, type VariableType, type VariableValue } from './contact-variables.js'

/** A variable as a request gives it: `{name, type, value}`; `type` is optional (the Go SDK leaves it out). */
export interface GivenVariable {
  name: string
  type?: string
  value: unknown
}

/** Variables to merge into a number: a value, or null to remove the variable (an empty value). */
export type VariablesPatch = Record<string, VariableValue | null>

export interface TypedVariables {
  patch: VariablesPatch
  /** Variables the list had not declared, with the type they get. */
  newVariables: { name: string; type: VariableType }[]
}

const TYPES: readonly string[] = ['string', 'number', 'date']
/** `2018-10-10 23:00:00`: a date value with a time (COMPAT.md "SMS and Viber" 9) keeps its date part. */
const DATE_WITH_TIME = /^(\d{4}-\d{2}-\d{2})[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?$/
/** `[[{…}]]` is the deepest nesting an SDK sends; a little more is tolerated, not unbounded recursion. */
const MAX_NESTING = 4

/**
 * The variables of one number as a flat list, from the shapes the SDKs send (COMPAT.md "SMS and Viber" 9):
 * `[[{name, type, value}]]` (every SDK), `[{…}]`, or a PHP form's index-keyed objects in their place.
 */
export function readGivenVariables(raw: unknown, argument: string): GivenVariable[] {
  const out: GivenVariable[] = []
  collect(raw, argument, 0, out)
  return out
}

function collect(raw: unknown, argument: string, depth: number, out: GivenVariable[]): void {
  if (raw === undefined || raw === null || raw === '') return
  if (depth > MAX_NESTING) throw invalid(argument)
  if (Array.isArray(raw) || isIndexKeyed(raw)) {
    for (const item of Object.values(raw)) collect(item, argument, depth + 1, out)
    return
  }
  const record = typeof raw === 'object' ? (raw as Record<string, unknown>) : {}
  if (typeof record.name !== 'string' && typeof record.name !== 'number') throw invalid(argument)
  const type = record.type === undefined || record.type === null || record.type === '' ? undefined : String(record.type)
  out.push({ name: String(record.name).trim(), type, value: record.value })
}

function invalid(argument: string): AppError {
  return new AppError('invalid', `Argument ${argument} is invalid: give a list of {"name": …, "type": …, "value": …} objects`)
}

/**
 * The stored values of `given`, each of the type its list declared (`types`), else of the type the request
 * names, else of the type its value suggests. Throws the 422 naming the first bad variable.
 */
export function typeVariables(given: readonly GivenVariable[], types: ReadonlyMap<string, string>): TypedVariables {
  const patch: VariablesPatch = {}
  const declared = new Map<string, VariableType>()
  for (const variable of given) {
    // A number's own number is not one of its variables.
    if (isPhoneVariable(variable.name)) continue
    const problem = variableNameProblem(variable.name)
    if (problem) throw new AppError('invalid', problem)
    if (variable.type !== undefined && !TYPES.includes(variable.type)) {
      throw new AppError('invalid', `Variable "${variable.name}" has type "${variable.type}": use string, number or date`)
    }
    const value = scalarValue(variable.value)
    if (value instanceof Error) throw new AppError('invalid', `Variable "${variable.name}": ${value.message}`)
    // PostgreSQL's jsonb refuses \u0000, and no value needs it.
    if (typeof value === 'string' && value.includes('\u0000')) throw new AppError('invalid', `Variable "${variable.name}" holds a NUL character`)
    if (value === undefined) {
      patch[variable.name] = null
      continue
    }
    let type = (types.get(variable.name) ?? declared.get(variable.name)) as VariableType | undefined
    if (!type) {
      type = (variable.type as VariableType | undefined) ?? inferVariableType(value)
      declared.set(variable.name, type)
    }
    patch[variable.name] = coerceToType(variable.name, type, type === 'date' ? withoutTime(value) : value)
  }
  return { patch, newVariables: [...declared].map(([name, type]) => ({ name, type })) }
}

function withoutTime(value: VariableValue): VariableValue {
  const match = typeof value === 'string' ? DATE_WITH_TIME.exec(value) : null
  return match ? match[1]! : value
}

/** The patch without its removals: the variables of a number added now. */
export function valuesOf(patch: VariablesPatch): Record<string, VariableValue> {
  const out: Record<string, VariableValue> = {}
  for (const [name, value] of Object.entries(patch)) if (value !== null) out[name] = value
  return out
}
