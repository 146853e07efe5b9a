// PHP-style lists: a form's `a[0]=x&a[1]=y` and serialize() of a list decode to objects keyed 0, 1, ….

/** `{"0": "a", "1": "b"}`: what PHP 1.x forms (`0=a&1=b`) and serialize() of a list decode to. */
export function isIndexKeyed(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const keys = Object.keys(value)
  return keys.length > 0 && keys.every((k, i) => k === String(i))
}
