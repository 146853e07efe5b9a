// An import or export makes many calls in a row: at the default TIDINGS_API_RATE (100 a second, 200 at once) a
// 1,000,000-contact export (10,000 pages) meets the account's request limit. Its 429 says when to come back.
import { ApiError } from '../api.js'

/** 429s in a row waited out before giving up. */
const ATTEMPTS = 5

export async function rateLimited<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 429 && attempt < ATTEMPTS)) throw err
      await new Promise((resolve) => setTimeout(resolve, (err.retryAfterSeconds ?? 1) * 1000))
    }
  }
}
