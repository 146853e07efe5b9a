// `transliterate` (the SDKs send it; SendPulse's panel calls it "transliteration"): characters GSM-7 lacks
// (Cyrillic, Greek lower case, …) are written in Latin letters, so the text goes as GSM-7 — 160 characters a
// part instead of 70. Runs of such characters are transliterated together (a word keeps its context, as in
// Ukrainian "Я" → "Ya" at its start); characters GSM-7 has (€, ä, £) stay as they are, and so do those with no
// Latin spelling (an emoji): dropping them would change the message, keeping them keeps it UCS-2.
import type * as Transliteration from 'transliteration'
import { lazyRequire } from '../../lib/lazy-require.js'
import { isGsm7Character } from '../../delivery/sms/text.js'

const transliteration = lazyRequire<typeof Transliteration>('transliteration')

export function transliterateForSms(text: string): string {
  const { transliterate } = transliteration()
  let out = ''
  let run = ''
  for (const char of text) {
    if (isGsm7Character(char) || transliterate(char) === '') {
      if (run) out += transliterate(run)
      run = ''
      out += char
    } else {
      run += char
    }
  }
  return run ? out + transliterate(run) : out
}
