// Wire schemas of the template routes (API.md 2.4, 4.3).
import { Type } from '@sinclair/typebox'
import { Id, Name, PageQuery } from './common.js'

export const CreateTemplateBody = Type.Object({
  name: Type.Optional(Name),
  body: Type.String({ description: 'HTML, Base64-encoded' }),
  lang: Type.Optional(Type.String({ description: 'en, ru, ua, tr, es or pt (default en)' })),
})

export const TemplateCreated = Type.Object({ result: Type.Boolean(), real_id: Type.Integer() })

export const EditTemplateBody = Type.Object({
  body: Type.String({ description: 'HTML, Base64-encoded' }),
  lang: Type.Optional(Type.String({ description: 'must be the language the template was created in' })),
})

// No NUL: PostgreSQL refuses it in text, so the lookup failed with a 500 instead of a 404 (fuzzing found it).
const NO_NUL = '^[^\\u0000]*$'
const TemplateRef = Type.String({ minLength: 1, maxLength: 64, pattern: NO_NUL, description: 'real_id (digits) or the string id' })

export const EditTemplateParams = Type.Object({ id: TemplateRef })
export const TemplateParams = Type.Object({ template_id: TemplateRef })
export const SlugParams = Type.Object({ name_slug: Type.String({ minLength: 1, maxLength: 255, pattern: NO_NUL }) })

export const TemplatesQuery = Type.Object({
  ...PageQuery.properties,
  owner: Type.Optional(Type.String({ description: '`me`: the account\'s own templates; otherwise the system templates' })),
})

const templateFields = {
  id: Type.String({ description: 'changes on every edit' }),
  real_id: Id,
  lang: Type.String(),
  name: Type.String(),
  name_slug: Type.String(),
  created: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  full_description: Type.Union([Type.String(), Type.Null()]),
  category: Type.String(),
  category_info: Type.Null({ description: 'an object or null (never [])' }),
  tags: Type.Null({ description: 'an object or null (never [])' }),
  owner: Type.String({ description: '`me` for the account\'s own templates, `system` for system templates' }),
  preview: Type.String({ description: 'image URL (SVG) for system templates; empty for own templates' }),
  body: Type.String({ description: 'Tidings extension: the HTML, Base64-encoded as it is sent' }),
}

export const TemplateListItem = Type.Object(templateFields)
export const Template = Type.Object({ ...templateFields, is_structure: Type.Boolean() })
