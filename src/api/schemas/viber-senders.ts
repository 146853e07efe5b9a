// Wire schema of a Viber sender name (API.md 2.10) with the keys the Go SDK decodes next to it (COMPAT.md "SMS
// and Viber" 5: `countries`, `owner`): every string a string ("" when empty), `admin_comment` a string or null.
import { Type } from '@sinclair/typebox'

export const ViberSender = Type.Object({
  id: Type.Integer(),
  status: Type.String({ description: 'moderation, verified (campaigns may use it) or blocked' }),
  name: Type.String(),
  service_type: Type.String(),
  web_site: Type.String(),
  description: Type.String(),
  country: Type.String({ description: 'ISO 3166 alpha-2 code; "" when not tied to one country' }),
  countries: Type.Array(Type.String(), { description: '[country], or [] when not tied to one country' }),
  traffic_type: Type.String(),
  admin_comment: Type.Union([Type.String(), Type.Null()], { description: "The operator's comment on the last moderation; null when none" }),
  owner: Type.String({ description: 'Always "you": an account sees only its own sender names' }),
})
