// Email templates (API.md 4.3): a gallery of the account's own templates (GET /templates?owner=me, 24 a page) and
// of the system ones (GET /templates), each with its preview; #/templates/new and #/templates/{real_id} open the
// editor (template-editor.tsx). The page follows the hash itself: the shell only knows it is on Templates.
//
// A template's HTML is tenant content: the gallery shows an own template only as a thumbnail in a sandboxed frame
// loaded from GET /template/{template_id}/body (api/routes/template-body.ts), whose own policy, as the outbox body's,
// lets its inline styles apply but no script run and nothing be fetched but data: images, made inert so nothing in it can be clicked or
// focused; a system template by its preview image, an SVG of this origin, which as an <img> runs nothing either.
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, usePageState } from '../parts/page-state.js'
import { previewPathOf, templateRouteOf, type Template } from '../parts/templates.js'
import { TemplateEditor } from './template-editor.js'

const PAGE_SIZE = 24

export function TemplatesPage() {
  const [hash, setHash] = useState(location.hash)
  // Set by the editor that just created a template, shown by the editor that opens it next.
  const [notice, setNotice] = useState<{ id: number; message: string }>()
  useEffect(() => {
    const follow = () => setHash(location.hash)
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  const route = templateRouteOf(hash)
  if (route.kind === 'gallery') return <Gallery />
  const created = (id: number, message: string) => {
    setNotice({ id, message })
    location.hash = `#/templates/${id}`
  }
  return route.kind === 'new' ? (
    <TemplateEditor key={`new-${route.from}`} copyOf={route.from} onCreated={created} />
  ) : (
    <TemplateEditor key={route.id} id={route.id} notice={notice?.id === route.id ? notice.message : ''} onCreated={created} />
  )
}

function Gallery() {
  const [offset, setOffset] = useState(0)
  const own = usePageState(() => api<Template[]>('GET', `/templates?owner=me&limit=${PAGE_SIZE}&offset=${offset}`), [offset])
  const system = usePageState(() => api<Template[]>('GET', '/templates?limit=100'))
  return (
    <section aria-labelledby="page-title" class="templates">
      <h1 id="page-title">Templates</h1>
      <p>
        <a class="button" href="#/templates/new">
          New template
        </a>
      </p>
      <h2>Your templates</h2>
      <Messages state={own} />
      {own.data === undefined ? (
        !own.error && <p>Loading your templates…</p>
      ) : own.data.length === 0 && offset === 0 ? (
        <p>No templates yet: start a new one, or from a system template below.</p>
      ) : (
        <Cards templates={own.data} label="Your templates" />
      )}
      {own.data !== undefined && (offset > 0 || own.data.length === PAGE_SIZE) && <Pager offset={offset} size={PAGE_SIZE} shown={own.data.length} onOffset={setOffset} />}
      <h2>System templates</h2>
      <Messages state={system} />
      {system.data === undefined ? !system.error && <p>Loading the system templates…</p> : <Cards templates={system.data} label="System templates" />}
    </section>
  )
}

function Cards({ templates, label }: { templates: Template[]; label: string }) {
  return (
    <ul class="gallery" aria-label={label}>
      {templates.map((template) => (
        <li key={template.real_id} class="card">
          <Thumbnail template={template} />
          <h3>
            <a href={`#/templates/${template.real_id}`}>{template.name}</a>
          </h3>
          <p class="muted">
            {template.owner === 'system' ? `System · ${template.category}` : `Created ${template.created}`} · {template.lang}
          </p>
          {template.owner === 'system' && (
            <a class="button secondary" href={`#/templates/new?from=${template.real_id}`}>
              Use as a starting point<span class="visually-hidden">: {template.name}</span>
            </a>
          )}
        </li>
      ))}
    </ul>
  )
}

function Thumbnail({ template }: { template: Template }) {
  const image = previewPathOf(template)
  return (
    <div class="thumb" inert>
      {image ? (
        <img src={image} alt="" />
      ) : (
        <iframe title={`Preview of ${template.name}`} sandbox="" referrerpolicy="no-referrer" loading="lazy" tabIndex={-1} src={`/template/${template.real_id}/body`} />
      )}
    </div>
  )
}
