// Generated contacts for the audience benchmarks: the same i always gives the same contact, with three
// variables of the three types (a name string, an age number, a signup date).
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { finished } from 'node:stream/promises'
import { json } from './http.js'

export interface BenchContact {
  email: string
  variables: { name: string; age: number; signup: string }
}

const FIRST = ['Anna', 'Bohdan', 'Chloé', 'Dmytro', 'Emma', 'Farid', 'Greta', 'Hiro', 'Iryna', 'José']

/** Contact number `i` of the data set `prefix` (distinct prefixes give distinct addresses). */
export function benchContact(i: number, prefix = 'c'): BenchContact {
  const day = (i % 28) + 1
  const month = ((i >> 5) % 12) + 1
  return {
    email: `${prefix}${i}.${FIRST[i % FIRST.length]!.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')}@mail${i % 50}.example.com`,
    variables: {
      name: `${FIRST[i % FIRST.length]} ${i}`,
      age: 18 + (i % 60),
      signup: `20${10 + (i % 15)}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    },
  }
}

/** A POST /addressbooks/{id}/emails body with contacts from..to-1. */
export function addEmailsBody(from: number, to: number, prefix = 'c'): string {
  const emails: BenchContact[] = []
  for (let i = from; i < to; i++) emails.push(benchContact(i, prefix))
  return JSON.stringify({ emails })
}

/** Writes contacts 0..count-1 as the CSV `tidings import` reads; streamed, so memory stays small. */
export async function writeContactsCsv(path: string, count: number, prefix = 'c'): Promise<void> {
  const out = createWriteStream(path)
  out.write('email,name,age,signup\n')
  let chunk = ''
  for (let i = 0; i < count; i++) {
    const c = benchContact(i, prefix)
    chunk += `${c.email},${c.variables.name},${c.variables.age},${c.variables.signup}\n`
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain')
      chunk = ''
    }
  }
  out.end(chunk)
  await finished(out)
}

/**
 * POSTs contacts from..to-1 to a list, `batch` per request with `concurrency` requests in flight; every
 * contact must be accepted. Returns the number of requests. The bodies are made as they are sent.
 */
export async function postContacts(
  base: string,
  headers: Record<string, string>,
  list: number,
  options: { from: number; to: number; batch: number; concurrency: number; prefix?: string },
): Promise<number> {
  const bodies = function* () {
    for (let from = options.from; from < options.to; from += options.batch) yield addEmailsBody(from, Math.min(options.to, from + options.batch), options.prefix)
  }
  return postBodies(base, headers, list, bodies(), options.concurrency)
}

/** The bodies of postContacts, made ahead (bench:import makes them before its clock starts, as for raw inserts). */
export function addEmailsBodies(options: { from: number; to: number; batch: number; prefix?: string }): string[] {
  const bodies: string[] = []
  for (let from = options.from; from < options.to; from += options.batch) bodies.push(addEmailsBody(from, Math.min(options.to, from + options.batch), options.prefix))
  return bodies
}

/** POSTs each body to POST /addressbooks/{list}/emails, `concurrency` at a time; each must be accepted whole. */
export async function postBodies(base: string, headers: Record<string, string>, list: number, bodies: Iterable<string>, concurrency: number): Promise<number> {
  const url = `${base}/addressbooks/${list}/emails`
  const next = bodies[Symbol.iterator]()
  let requests = 0
  const worker = async () => {
    for (let body = next.next(); !body.done; body = next.next()) {
      const answer = await json<{ result: boolean; invalid_emails?: string[] }>(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: body.value,
      })
      requests++
      if (answer.result !== true || answer.invalid_emails) throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return requests
}
