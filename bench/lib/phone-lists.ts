// The numbers of the phone benchmarks (bench:sms, bench:viber) and their loading into a list through the API.
import { json } from './http.js'

/** Numbers a POST /sms/numbers call, and calls in flight. */
const LOAD_BATCH = 10_000
const LOAD_CONCURRENCY = 2

/**
 * Distinct valid UK mobile numbers (+44 7400 1xxxxx; libphonenumber-js/max accepts all 100,000 of them), as
 * strings without the plus: Tidings reads a number without `+` as international.
 */
export function phone(i: number): string {
  if (i >= 100_000) throw new Error('phone(): at most 100,000 numbers (4474001 and 5 digits)')
  return `4474001${String(i).padStart(5, '0')}`
}

/** POST /sms/numbers, LOAD_BATCH numbers a call, LOAD_CONCURRENCY calls in flight; every number must be added. */
export async function loadNumbers(base: string, headers: Record<string, string>, list: number, count: number): Promise<void> {
  let next = 0
  let added = 0
  const worker = async () => {
    while (next < count) {
      const from = next
      next = Math.min(count, from + LOAD_BATCH)
      const phones: string[] = []
      for (let i = from; i < next; i++) phones.push(phone(i))
      const answer = await json<{ result: boolean; counters: { added: number; exceptions: number; exists: number } }>(`${base}/sms/numbers`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ addressBookId: list, phones }),
      })
      if (answer.result !== true || answer.counters.exceptions !== 0) throw new Error(`POST /sms/numbers answered ${JSON.stringify(answer)}`)
      added += answer.counters.added
    }
  }
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker))
  if (added !== count) throw new Error(`${added} numbers added to list ${list}, expected ${count}`)
}
