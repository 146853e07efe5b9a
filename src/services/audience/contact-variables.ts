// The rules of contact variables (API.md 4.1, 4.1.1): which names are allowed, the type a variable gets
// when first used, and which values each type accepts. Pure: no storage.
import { AppError } from '../errors.js'

export type VariableType = 'string' | 'number' | 'date'
export type VariableValue = string | number
export type ContactVariables = Record<string, VariableValue>

/** Unicode letters, digits, dots, commas, question and exclamation marks, quotes, hyphens, underscores, slash, space. */
const NAME_CHARACTERS = /^[\p{L}\p{M}\p{N}.,?!'"\-_/ ]+$/u
const HAS_LETTER = /\p{L}/u
const NUMBER = /^-?\d+(\.\d+)?$/

/** The system variable that sets a contact's phone (API.md 4.1.1) instead of being stored as a variable. */
export function isPhoneVariable(name: string): boolean {
  return name === 'Phone' || name === 'phone'
}

/** Why a variable name is not allowed, or undefined when it is. */
export function variableNameProblem(name: string): string | undefined {
  if (name.length > 255) return `Variable name "${name.slice(0, 40)}…" is longer than 255 characters`
  if (!NAME_CHARACTERS.test(name)) {
    return `Variable name "${name}" may hold only letters, digits, spaces and . , ? ! ' " - _ /`
  }
  if (!HAS_LETTER.test(name)) return `Variable name "${name}" must contain at least one letter`
  return undefined
}

/**
 * A calendar date written exactly YYYY-MM-DD (`2017-1-1` and `2017-02-30` are not). Read character by
 * character: a regular expression's match and its captured strings cost 1.5 µs a value, a fifth of preparing a
 * contact in an import (profile of bench/import.ts).
 */
export function isDate(text: string): boolean {
  if (text.length !== 10 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return false
  const year = digitsAt(text, 0, 4)
  const month = digitsAt(text, 5, 2)
  const day = digitsAt(text, 8, 2)
  return year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

const DASH = 45
const ZERO = 48

/** The number written by `count` ASCII digits at `from`, or -1 when one of them is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let n = 0
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - ZERO
    if (digit < 0 || digit > 9) return -1
    n = n * 10 + digit
  }
  return n
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/** The type a new variable takes from its first value: numbers sent as numbers, dates as YYYY-MM-DD. */
export function inferVariableType(value: VariableValue): VariableType {
  if (typeof value === 'number') return 'number'
  return isDate(value) ? 'date' : 'string'
}

/**
 * A raw value as sent (JSON, form string, PHP serialize() scalar) turned into a storable one; undefined for
 * an empty value (null, ''), which means "no value". Objects and arrays are not values.
 */
export function scalarValue(raw: unknown): VariableValue | undefined | Error {
  if (raw === null || raw === undefined) return undefined
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : new Error('not a finite number')
  if (typeof raw === 'boolean') return raw ? 1 : 0
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw.trim()
  return new Error('not a string, number or date')
}

/** The value stored for a variable of `type`, or the 4xx that names the variable (API.md 4.1 value rules). */
export function coerceToType(name: string, type: VariableType, value: VariableValue): VariableValue {
  switch (type) {
    case 'number':
      if (typeof value === 'number') return value
      // Form clients send every value as a string (COMPAT.md 15): "77" is the number 77.
      if (NUMBER.test(value)) return Number(value)
      throw new AppError('invalid', `Variable "${name}" is of type number and accepts only numbers, got "${value}"`)
    case 'date':
      if (typeof value === 'string' && isDate(value)) return value
      throw new AppError('invalid', `Variable "${name}" is of type date and accepts only YYYY-MM-DD, got "${String(value)}"`)
    default:
      return String(value)
  }
}

/** Variables as the single-contact answers show them: `[{name, type, value}]`, values as strings. */
export function variablesAsList(
  variables: ContactVariables,
  types: ReadonlyMap<string, string>,
): { name: string; type: string; value: string }[] {
  return Object.entries(variables).map(([name, value]) => ({ name, type: types.get(name) ?? 'string', value: String(value) }))
}
