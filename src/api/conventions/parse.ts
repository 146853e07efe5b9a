// The text parsers shared by bodies and query strings: strict UTF-8, prototype-safe JSON, PHP-bracket forms.
import qs from 'qs'
import secureJson from 'secure-json-parse'
import { AppError } from '../../services/errors.js'

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
  try {
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
  } catch (cause) {
    throw new AppError('bad_request', 'Request body is not valid JSON', { cause })
  }
}

const FORM_OPTIONS: qs.IParseOptions = {
  // qs turns indexes above arrayLimit into object keys; lists of up to this many items stay arrays.
  arrayLimit: 100_000,
  parameterLimit: 100_000,
  depth: 8,
  allowPrototypes: false,
}

/** A form (`a[0][name]=x&route[UA]=national`, `+` as space) as PHP would read it. */
export function parseForm(text: string): Record<string, unknown> {
  return qs.parse(text, FORM_OPTIONS) as Record<string, unknown>
}
