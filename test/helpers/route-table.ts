// The routes of a running app as the isolation table reads them: every method and path from Fastify's own
// route table (app.printRoutes, so a route hidden from the OpenAPI document is still seen), which of them sit
// behind the bearer check (asked of the app itself), and their query and body parameters from /openapi.json.
import type { FastifyInstance } from 'fastify'

export type ParamPlace = 'path' | 'query' | 'body'

export interface JsonSchema {
  type?: string | string[]
  minimum?: number
  items?: JsonSchema
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
}

export interface RouteParam {
  name: string
  in: ParamPlace
  schema: JsonSchema
}

export interface AccountRoute {
  method: string
  /** Fastify's form: `/addressbooks/:id`. */
  url: string
  /** The OpenAPI form: `/addressbooks/{id}`. */
  path: string
  params: RouteParam[]
}

/** Every method and path in the router, HEAD left out (Fastify adds one to each GET). */
export function routerTable(app: FastifyInstance): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = []
  // Each level of the printed tree is indented by 4 characters, then "├── " or "└── ", the segment, its methods.
  const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([A-Z, ]+)\))?$/
  const prefixes: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue
    const match = LINE.exec(line)
    if (!match) throw new Error(`cannot read this line of app.printRoutes(): ${JSON.stringify(line)}`)
    const depth = match[1]!.length / 4
    const url = (depth > 0 ? prefixes[depth - 1]! : '') + match[2]!
    prefixes[depth] = url
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) out.push({ method, url })
  }
  return out
}

/** `/a/:id/b/:email` → `/a/{id}/b/{email}`, as @fastify/swagger writes it. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}

/** A route is the account's when a call without a credential meets the bearer check's 401 (auth.ts unauthorized()). */
async function isBehindBearerCheck(app: FastifyInstance, method: string, url: string): Promise<boolean> {
  const answer = await app.inject({ method: method as 'GET', url: url.replace(/:[A-Za-z0-9_]+/g, '1') })
  return answer.statusCode === 401 && /invalid_token/.test(String(answer.headers['www-authenticate'] ?? ''))
}

interface Operation {
  parameters?: { name: string; in: string; schema?: JsonSchema }[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
}

/** The routes behind the bearer check, each with its path, query and body parameters. */
export async function accountRoutes(app: FastifyInstance): Promise<AccountRoute[]> {
  const doc = app.swagger() as { paths: Record<string, Record<string, Operation>> }
  const routes: AccountRoute[] = []
  for (const { method, url } of routerTable(app)) {
    if (!(await isBehindBearerCheck(app, method, url))) continue
    const path = openApiPath(url)
    const operation = doc.paths[path]?.[method.toLowerCase()]
    if (!operation) throw new Error(`${method} ${path} is behind the bearer check but not in /openapi.json (schema.hide?): its parameters cannot be read`)
    const params: RouteParam[] = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1]!, in: 'path', schema: {} }))
    for (const p of operation.parameters ?? []) if (p.in === 'query') params.push({ name: p.name, in: 'query', schema: p.schema ?? {} })
    const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema
    for (const [name, schema] of Object.entries(body?.properties ?? {})) params.push({ name, in: 'body', schema })
    routes.push({ method, url, path, params })
  }
  return routes
}
