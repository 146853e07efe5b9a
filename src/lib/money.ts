// Money as integer micro-units (1e-6), parsed from and printed as decimal strings without float rounding.

export const MICROS = 1_000_000

/** Parses "12.5", "-3", "0.0044" into micro-units; undefined when it is not a decimal number. */
export function parseMicros(text: string): number | undefined {
  const match = /^(-)?(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim())
  if (!match) return undefined
  const [, sign, whole = '0', fraction = ''] = match
  const micros = Number(whole) * MICROS + Number(fraction.padEnd(6, '0'))
  return sign ? -micros : micros
}

/** Micro-units as a number of currency units (for JSON numbers such as balance_currency). */
export function microsToNumber(micros: number): number {
  return micros / MICROS
}

/** Micro-units as a fixed-point string with `digits` decimals ("0.00"). */
export function formatMicros(micros: number, digits = 2): string {
  return (micros / MICROS).toFixed(digits)
}
