// The body of a webhook request as SendPulse sends it: a form whose top-level keys are the events' positions in
// the batch, in PHP bracket notation (`0[event]=open&0[email]=a%40b.com&1[event]=...`), so a PHP receiver finds
// the batch as an array in $_POST and a Node one gets the same from qs.parse or express.urlencoded({ extended }).
import qs from 'qs'

/**
 * The batch as an `application/x-www-form-urlencoded` body. Values follow PHP's http_build_query, which is what
 * receivers written for SendPulse expect: true and false become 1 and 0 (the string "false" would be truthy in
 * PHP), null, undefined and empty arrays or objects send no field, nested arrays and objects become `0[a][0]=x`.
 */
export function formBody(events: Record<string, unknown>[]): string {
  return qs.stringify(events, {
    arrayFormat: 'indices',
    // Spaces as `+`, as http_build_query and browsers write forms; every form parser reads both spellings.
    format: 'RFC1738',
    skipNulls: true,
    filter: (_prefix, value: unknown) => (typeof value === 'boolean' ? Number(value) : value),
    // Keys are percent-encoded too (`0%5Bevent%5D`): every form parser decodes a name before reading its
    // brackets, and a nested key holding `&` or `=` (a customer's variable name) cannot split the field.
    encodeValuesOnly: false,
  })
}
