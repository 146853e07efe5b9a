// Requests generated from the API's own OpenAPI document: for each operation, an arbitrary of inject() options
// whose path values, query strings and bodies are valid for the operation's schemas or deliberately not
// (per field), plus raw bodies no schema describes (broken JSON, forms, other media types).
import fc from 'fast-check'
import { stringify } from 'qs'
import { invalidValue, validValue, type JsonSchema, type KnownValues } from './json-schema-arbitraries.js'

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: JsonSchema
}

interface OpenApiOperation {
  tags?: string[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>
}

export interface Operation {
  /** `POST /addressbooks/{id}/emails`, as in the document. */
  name: string
  method: string
  path: string
  /** Pages for people (HTML, images, redirects): their answers, errors included, are pages too. */
  publicPage: boolean
  /** An account route whose success is an HTML page by design (`x-tidings-html-page`): its errors are still JSON. */
  htmlPage: boolean
  pathParameters: Parameter[]
  queryParameters: Parameter[]
  body?: JsonSchema
}

/** The request as sent and as kept in the regression list: plain JSON. */
export interface FuzzRequest {
  method: string
  url: string
  headers?: Record<string, string>
  /** A JSON value (sent as application/json) or, with a content-type header, the raw body. */
  payload?: unknown
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const out: Operation[] = []
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? []
      out.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        publicPage: operation.tags?.includes('Public pages') ?? false,
        htmlPage: (operation as { 'x-tidings-html-page'?: boolean })['x-tidings-html-page'] === true,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        body: Object.values(operation.requestBody?.content ?? {})[0]?.schema,
      })
    }
  }
  return out
}

/** Valid three times out of four: a request needs its other fields right to reach the code behind them. */
function validOrNot(schema: JsonSchema, known: KnownValues, hint: string): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: validValue(schema, known, hint), weight: 3 }, { arbitrary: invalidValue(schema, known, hint), weight: 1 })
}

/** A lone UTF-16 surrogate: no client can put one in a URL (encodeURIComponent throws URIError for it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** A value as a client would write it in a URL: strings as they are (lone surrogates as U+FFFD, as a browser does), others as JSON. */
function encodedValue(v: unknown): string {
  return encodeURIComponent(typeof v === 'string' ? v.replace(LONE_SURROGATE, '\uFFFD') : (JSON.stringify(v) ?? ''))
}

/** A path segment: a value as the client would put it, or bytes a hand-made URL could hold. */
function pathValue(parameter: Parameter, known: KnownValues): fc.Arbitrary<string> {
  const value = validOrNot(parameter.schema ?? {}, known, parameter.name).map(encodedValue)
  const raw = fc.constantFrom('%', '%ZZ', '..', '%2e%2e', '%00', '%2F..%2F', ';', '*', 'x'.repeat(300), '9'.repeat(400))
  return fc.oneof({ arbitrary: value, weight: 5 }, { arbitrary: raw, weight: 1 })
}

/** One query parameter, serialised the way SendPulse's SDKs do it (`name[]=` for lists), or not. */
function queryPart(parameter: Parameter, known: KnownValues): fc.Arbitrary<string> {
  const encoded = validOrNot(parameter.schema ?? {}, known, parameter.name).map((v) =>
    Array.isArray(v) ? stringify({ [parameter.name]: v }, { arrayFormat: 'brackets' }) : `${encodeURIComponent(parameter.name)}=${encodedValue(v)}`,
  )
  const raw = fc.constantFrom('', '=', '%', `${parameter.name}=%ZZ`, `${parameter.name}[a][b][c][d][e][f]=1`, `${parameter.name}=1&${parameter.name}=2`, `${parameter.name}[]=`)
  return fc.oneof({ arbitrary: encoded, weight: 5 }, { arbitrary: raw, weight: 1 })
}

const RAW_BODIES = [
  { 'content-type': 'application/json', body: '{"unclosed": ' },
  { 'content-type': 'application/json', body: '' },
  { 'content-type': 'application/json', body: '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}' },
  { 'content-type': 'application/json; charset=utf-16', body: '{}' },
  { 'content-type': 'application/x-www-form-urlencoded', body: 'a[b][c][d][e][f]=1&emails[0][variables][x][y]=2&%ZZ=3' },
  { 'content-type': 'text/plain', body: 'hello' },
  { 'content-type': 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--' },
  { 'content-type': 'text/html', body: '<html></html>' },
]

/** The body: an object valid or not field by field, a whole wrong value, the same as a PHP SDK form, or raw bytes. */
function bodyOf(operation: Operation, known: KnownValues): fc.Arbitrary<Pick<FuzzRequest, 'headers' | 'payload'>> {
  const schema: JsonSchema = operation.body ?? { type: 'object', properties: Object.fromEntries(operation.queryParameters.map((p) => [p.name, p.schema ?? {}])) }
  const fields = Object.entries(schema.properties ?? {})
  const mixed = fc.record(Object.fromEntries(fields.map(([name, s]) => [name, validOrNot(s, known, name)])), { requiredKeys: [] })
  const json = fc.oneof(
    { arbitrary: validValue(schema, known), weight: 3 },
    { arbitrary: mixed, weight: 4 },
    { arbitrary: invalidValue(schema, known), weight: 2 },
  )
  const asJson = json.map((payload) => ({ payload }))
  const asForm = validValue(schema, known).map((value) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: stringify(value) }))
  const raw = fc.constantFrom(...RAW_BODIES).map(({ body, ...headers }) => ({ headers, payload: body }))
  // Operations without a body in the document still get one now and then: SDKs send GET parameters as a body.
  const none = fc.constant({})
  if (!operation.body) return fc.oneof({ arbitrary: none, weight: 6 }, { arbitrary: asJson, weight: 2 }, { arbitrary: raw, weight: 1 })
  return fc.oneof({ arbitrary: asJson, weight: 8 }, { arbitrary: asForm, weight: 1 }, { arbitrary: raw, weight: 1 }, { arbitrary: none, weight: 1 })
}

export function requestOf(operation: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const path = fc.tuple(...operation.pathParameters.map((p) => pathValue(p, known))).map((values) => {
    let i = 0
    return operation.path.replace(/\{[^}]+\}/g, () => values[i++] ?? '')
  })
  const extraQuery = fc.constantFrom('', 'unknown=1', '__proto__[x]=1', 'limit=-1', 'a[b][c][d][e][f][g][h]=1')
  const query = fc
    .tuple(fc.subarray(operation.queryParameters).chain((chosen) => fc.tuple(...chosen.map((p) => queryPart(p, known)))), extraQuery)
    .map(([parts, extra]) => [...parts, extra].filter((p) => p !== '').join('&'))
  return fc.record({ path, query, body: bodyOf(operation, known) }).map(({ path, query, body }) => ({
    method: operation.method,
    url: query ? `${path}?${query}` : path,
    ...body,
  }))
}
