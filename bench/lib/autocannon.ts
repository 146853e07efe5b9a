// autocannon ships no type declarations (and @types/autocannon is not installed): the part we use.
import { createRequire } from 'node:module'

export interface Histogram {
  average: number
  p50: number
  p99: number
  max: number
}

export interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  errors: number
  timeouts: number
  non2xx: number
  mismatches: number
  duration: number
  statusCodeStats: Record<string, { count: number }>
}

export interface AutocannonRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  /** Called before each request: returns the request to send (here: a different path each time). `context` is the connection's own object, also given to onResponse. */
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest
  /** Called with each answer: its status, its body (decoded as UTF-8) and its headers (names in lower case). */
  onResponse?: (status: number, body: string, context: object, headers: Record<string, string>) => void
}

export interface AutocannonOptions {
  /** Several URLs: connection i goes to url[i % length]. */
  url: string | string[]
  connections: number
  duration: number
  headers?: Record<string, string>
  expectBody?: string
  requests?: AutocannonRequest[]
}

export type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon
