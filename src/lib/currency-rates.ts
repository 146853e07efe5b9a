// Currency conversion for GET /balance/{currency}: the `currencyRates` setting ("USD=1,EUR=0.92,UAH=41.3",
// units of each currency per 1 USD) parsed into exact decimal fractions, so a balance converts without
// float drift and is rounded once, to the micro-unit.

/** A rate as the exact fraction units/scale (0.92 is 92/100). */
export interface Rate {
  units: bigint
  scale: bigint
}

/** Rates by upper-case ISO code. */
export type CurrencyRates = ReadonlyMap<string, Rate>

const ENTRY = /^([A-Za-z]{3})\s*=\s*(\d+)(?:\.(\d+))?$/

/** Parses the setting; throws on a malformed entry, a zero rate or a currency given twice. */
export function parseCurrencyRates(text: string): CurrencyRates {
  const rates = new Map<string, Rate>()
  for (const entry of text.split(',').map((e) => e.trim())) {
    const match = ENTRY.exec(entry)
    if (!match) throw new Error(`currencyRates: "${entry}" is not CODE=RATE (e.g. EUR=0.92)`)
    const [, code = '', whole = '', fraction = ''] = match
    const rate = { units: BigInt(whole + fraction), scale: 10n ** BigInt(fraction.length) }
    if (rate.units === 0n) throw new Error(`currencyRates: the rate of ${code.toUpperCase()} must be above 0`)
    if (rates.has(code.toUpperCase())) throw new Error(`currencyRates: ${code.toUpperCase()} is given twice`)
    rates.set(code.toUpperCase(), rate)
  }
  return rates
}

/** An amount in micro-units of the `from` currency, in micro-units of `to`, rounded half away from zero. */
export function convertMicros(micros: number, from: Rate, to: Rate): number {
  // micros × (to per USD) ÷ (from per USD), as one integer fraction.
  const numerator = BigInt(micros) * to.units * from.scale
  const denominator = to.scale * from.units
  const quotient = numerator / denominator
  const remainder = numerator % denominator
  const away = 2n * (remainder < 0n ? -remainder : remainder) >= denominator
  return Number(away ? quotient + (numerator < 0n ? -1n : 1n) : quotient)
}
