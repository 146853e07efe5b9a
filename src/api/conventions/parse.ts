// The text parsers shared by bodies and query strings: strict UTF-8, prototype-safe JSON, PHP-bracket forms.
// Each one's work grows with its input's length and no faster, since they run before any login check.
import qs from 'qs'
import secureJson from 'secure-json-parse'
import { AppError, type ErrorCode } from '../../services/errors.js'
import { nestsDeeperThan } from '../../lib/json-depth.js'

/** SDK requests nest 5 levels at most (SMS variables: `{"phones": {"380…": [[{"name": …}]]}}`). */
export const MAX_JSON_DEPTH = 32

/**
 * Parameters a form or a query string may hold. PHP reads 1,000 by default (max_input_vars), and the largest
 * bracket form an SDK sends is PHP SDK 1.0.7–1.0.9's list of contacts (`emails[i][email]`,
 * `emails[i][variables][name]`…): 5,000 carry 1,000 contacts with four variables each, and parse in ~35 ms
 * (measured; 4,999 sparse indexes: ~26 ms). It bounds list indexes too: a list of n items needs n parameters.
 */
export const MAX_FORM_PARAMETERS = 5_000

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Decodes bytes as strict UTF-8: invalid sequences are a 400, never silently replaced. */
export function decodeUtf8(buffer: Buffer): string {
  try {
    return utf8.decode(buffer)
  } catch (cause) {
    throw new AppError('bad_request', 'Request body is not valid UTF-8', { cause })
  }
}

export function parseJsonText(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new AppError('bad_request', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
  } catch (cause) {
    throw new AppError('bad_request', 'Request body is not valid JSON', { cause })
  }
}

const FORM_OPTIONS: qs.IParseOptions = {
  // qs fills arrays slot by slot and walks every slot up to the highest index when it merges and compacts
  // them: `a0[99999]=&a1[99999]=…` (13 KB) took 2.7 s, and even a dense list of 10,000 items 1.6 s (the
  // merge counts the list once per item). With no arrays, qs builds only index-keyed objects, in time
  // linear in the input, and withLists() turns those into lists.
  arrayLimit: 0,
  parameterLimit: MAX_FORM_PARAMETERS,
  depth: 8,
  allowPrototypes: false,
}

/**
 * A form (`a[0][name]=x&route[UA]=national`, `+` as space) as PHP would read it. More than
 * MAX_FORM_PARAMETERS parameters is an error of code `tooMany` (413 for a body, 414 for a query string).
 */
export function parseForm(text: string, tooMany: ErrorCode = 'payload_too_large'): Record<string, unknown> {
  if (hasMoreParameters(text, MAX_FORM_PARAMETERS)) {
    throw new AppError(tooMany, `Too many parameters: at most ${MAX_FORM_PARAMETERS} are read`)
  }
  const form = qs.parse(text, FORM_OPTIONS) as Record<string, unknown>
  for (const key of Object.keys(form)) form[key] = withLists(form[key])
  return form
}

function hasMoreParameters(text: string, max: number): boolean {
  let count = 1
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    if (++count > max) return true
  }
  return false
}

/** Objects whose keys are all list indexes (`{0: a, 3: b}`) become lists in index order, as PHP reads them. */
function withLists(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const object = value as Record<string, unknown>
  const keys = Object.keys(object)
  for (const key of keys) object[key] = withLists(object[key])
  if (Array.isArray(value) || keys.length === 0 || !keys.every(isListIndex)) return value
  // Integer keys are enumerated in ascending order (ECMA-262 OrdinaryOwnPropertyKeys).
  return Object.values(object)
}

function isListIndex(key: string): boolean {
  return /^(0|[1-9]\d*)$/.test(key) && Number(key) < MAX_FORM_PARAMETERS
}
