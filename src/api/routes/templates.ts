// Email templates: API.md 4.3.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as templates from '../../services/email/templates.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { ResultTrue, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/templates.js'

const tags = ['Templates']
/** `GET /templates` pages with limit/offset (COMPAT.md 21); without them it answers up to this many. */
const MAX_PAGE = 1000

function toWireTemplate(deps: Deps, template: templates.Template) {
  return {
    id: template.publicId,
    real_id: template.realId,
    lang: template.lang,
    name: template.name,
    name_slug: template.nameSlug,
    created: toWireDate(template.createdAt),
    full_description: template.description,
    category: template.category,
    category_info: null,
    tags: null,
    owner: template.accountId === null ? 'system' : 'me',
    preview: templates.previewUrl(deps, template),
    body: Buffer.from(template.body).toString('base64'),
  }
}

export function templateRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/template',
      { schema: { tags, summary: 'Create a template from Base64 HTML', body: S.CreateTemplateBody, response: responses(S.TemplateCreated, 422) } },
      async (request) => ({ result: true, real_id: await templates.createTemplate(deps, request.accountId, request.body) }),
    )

    app.post(
      '/template/edit/:id',
      { schema: { tags, summary: 'Replace the HTML of an own template (its string id changes)', params: S.EditTemplateParams, body: S.EditTemplateBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await templates.editTemplate(deps, request.accountId, request.params.id, request.body)
        return { result: true }
      },
    )

    app.get(
      '/template/:template_id',
      { schema: { tags, summary: 'One template, by real_id or string id', params: S.TemplateParams, response: responses(S.Template, 404, 422) } },
      async (request) => ({ ...toWireTemplate(deps, await templates.getTemplate(deps, request.accountId, request.params.template_id)), is_structure: false }),
    )

    app.get(
      '/template/slug/:name_slug',
      { schema: { tags, summary: 'One template by its slug (own first, then system)', params: S.SlugParams, response: responses(S.Template, 404, 422) } },
      async (request) => ({ ...toWireTemplate(deps, await templates.getTemplateBySlug(deps, request.accountId, request.params.name_slug)), is_structure: false }),
    )

    app.get(
      '/templates',
      { schema: { tags, summary: 'System templates, or the own ones with owner=me', querystring: S.TemplatesQuery, response: responses(Type.Array(S.TemplateListItem), 422) } },
      async (request) => {
        const list = await templates.listTemplates(deps, request.accountId, request.query.owner === 'me', toPage(request.query, MAX_PAGE))
        return list.map((t) => toWireTemplate(deps, t))
      },
    )
  }
}

/** Preview images of the system templates: public, since `preview` URLs are shown as <img> anywhere. */
export function templatePreviewRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    app.get(
      '/template-previews/:file',
      {
        schema: { tags: ['Public pages'], summary: 'Preview image (SVG) of a system template', params: Type.Object({ file: Type.String({ pattern: '^[a-z0-9-]+\\.svg$' }) }) },
        config: { public: true },
      },
      async (request, reply) => {
        const { file } = request.params as { file: string }
        const svg = await templates.systemTemplatePreview(deps, file.slice(0, -'.svg'.length))
        if (!svg) return reply.status(404).send({ error_code: 404, message: 'Preview not found' })
        // The image is our own markup; the policy still forbids anything active in it.
        return reply
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
          .header('cache-control', 'public, max-age=3600')
          .type('image/svg+xml')
          .send(svg)
      },
    )
  }
}
