// Errors the services raise. They name what went wrong; api/errors.ts alone decides the HTTP status.

export type ErrorCode =
  | 'bad_request' // the request could not be read (malformed body, invalid UTF-8)
  | 'invalid' // arguments failed validation
  | 'unauthorized' // missing, unknown or expired bearer token
  | 'invalid_client' // wrong client credentials on the token call (or throttled)
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'too_many_requests' // a published per-account limit was reached
  | 'unavailable' // the database cannot be reached or answer now: try again later

export interface AppErrorOptions {
  /** The numeric `error_code` SendPulse publishes for this case (e.g. 213 "Book not found"). */
  publishedCode?: number
  cause?: unknown
  headers?: Record<string, string>
}

export class AppError extends Error {
  readonly publishedCode: number | undefined
  readonly headers: Record<string, string>

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'AppError'
    this.publishedCode = options.publishedCode
    this.headers = options.headers ?? {}
  }
}

/** Narrows anything thrown into an Error. */
export function coerceError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown))
}
