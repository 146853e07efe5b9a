// One template: its HTML source beside a live preview, the variables it uses, create (POST /template) or save
// (POST /template/edit/{real_id}: the real id stays, the string id changes), and a test send (template-test-send.tsx).
// A system template opens read-only; "Use as a starting point" copies it into a new one (#/templates/new?from=ID).
//
// The preview is the typed HTML posted by a hidden form into a sandboxed frame: POST /console/template-preview
// (api/console/template-preview.ts) echoes it under its own policy, so its inline styles apply (a srcdoc frame would
// inherit the console's style-src 'self' and show none), no script runs and nothing is fetched but data: images. A
// navigation can send no X-CSRF-Token header, so the token goes in the form. It follows the source 300 ms after the
// last keystroke: a frame reloaded on every key would flicker and cost a request each time.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, currentCsrfToken } from '../api.js'
import { messageOf } from '../parts/dialog.js'
import { Messages } from '../parts/page-state.js'
import { TEMPLATE_LANGS, base64Of, textOfBase64, type Template } from '../parts/templates.js'
import { BUILT_IN_VARIABLES, variablesOf } from '../parts/template-variables.js'
import { TemplateTestSend } from './template-test-send.js'

const PREVIEW_DELAY_MS = 300
/** The preview frame's name, the hidden form's target. */
const PREVIEW_FRAME = 'template-preview'

interface Props {
  /** The template opened (#/templates/12); none for a new one. */
  id?: number
  /** A new template starts as a copy of this one (#/templates/new?from=12). */
  copyOf?: number
  notice?: string
  onCreated: (id: number, message: string) => void
}

export function TemplateEditor({ id, copyOf, notice = '', onCreated }: Props) {
  const [template, setTemplate] = useState<Template | undefined>()
  const [name, setName] = useState('')
  const [lang, setLang] = useState('en')
  const [html, setHtml] = useState('')
  const [preview, setPreview] = useState('')
  const previewForm = useRef<HTMLFormElement>(null)
  const [messages, setMessages] = useState<{ status: string; error: string | undefined }>({ status: id === undefined ? '' : notice, error: undefined })
  const source = id ?? copyOf

  useEffect(() => {
    if (source === undefined) return
    api<Template>('GET', `/template/${source}`).then(
      (loaded) => {
        const body = textOfBase64(loaded.body)
        setTemplate(loaded)
        setName(id === undefined ? `${loaded.name} (copy)` : loaded.name)
        setLang(loaded.lang)
        setHtml(body)
        setPreview(body)
      },
      (err) => setMessages({ status: '', error: messageOf(err) }),
    )
  }, [])
  useEffect(() => {
    const timer = setTimeout(() => setPreview(html), PREVIEW_DELAY_MS)
    return () => clearTimeout(timer)
  }, [html])
  // After the render that put `preview` into the hidden form's field (the form is there once the template loaded).
  useEffect(() => previewForm.current?.submit(), [preview, template])

  const readOnly = id !== undefined && template?.owner === 'system'
  const save = async (event: Event) => {
    event.preventDefault()
    try {
      if (id === undefined) {
        const created = await api<{ real_id: number }>('POST', '/template', { name, lang, body: base64Of(html) })
        onCreated(created.real_id, `Template “${name}” created.`)
      } else {
        await api('POST', `/template/edit/${id}`, { body: base64Of(html) })
        setMessages({ status: `Template “${name}” saved.`, error: undefined })
      }
    } catch (err) {
      setMessages({ status: '', error: messageOf(err) })
    }
  }

  const title = id === undefined ? 'New template' : template === undefined ? 'Template' : readOnly ? `${template.name} (system template)` : template.name
  const variables = variablesOf(html)
  return (
    <section aria-labelledby="page-title" class="templates">
      <a href="#/templates">Back to the templates</a>
      <h1 id="page-title">{title}</h1>
      {readOnly && (
        <p>
          System templates cannot be changed.{' '}
          <a class="button" href={`#/templates/new?from=${id}`}>
            Use as a starting point
          </a>
        </p>
      )}
      {source !== undefined && template === undefined && !messages.error && <p>Loading the template…</p>}
      {(source === undefined || template !== undefined) && (
        <form onSubmit={save}>
          {id === undefined && (
            <div class="template-meta">
              <div class="field">
                <label for="template-name">Name</label>
                <input id="template-name" name="name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
              </div>
              <div class="field">
                <label for="template-lang">Language</label>
                <select id="template-lang" name="lang" value={lang} onChange={(e) => setLang(e.currentTarget.value)}>
                  {TEMPLATE_LANGS.map((code) => (
                    <option key={code} value={code}>
                      {code}
                    </option>
                  ))}
                </select>
              </div>
            </div>
          )}
          <div class="template-editor">
            <div class="field">
              <label for="template-html">HTML</label>
              <textarea id="template-html" name="html" required readOnly={readOnly} spellcheck={false} rows={20} value={html} onInput={(e) => setHtml(e.currentTarget.value)} />
            </div>
            <div class="field">
              <p class="label" id="preview-label">
                Preview <span class="muted">(variables as written; scripts and remote images are blocked here)</span>
              </p>
              <iframe class="message" name={PREVIEW_FRAME} title="Template preview" aria-describedby="preview-label" sandbox="" referrerpolicy="no-referrer" />
            </div>
          </div>
          <h2>Variables</h2>
          {variables.length === 0 ? (
            <p>This HTML uses no variables. Write {'{{name}}'} to put a contact's variable in.</p>
          ) : (
            <ul class="variables" aria-label="Variables the HTML uses">
              {variables.map((variable) => (
                <li key={variable}>
                  <code>{`{{${variable}}}`}</code> <span class="muted">{BUILT_IN_VARIABLES.has(variable) ? 'filled by Tidings' : "from the contact's variables"}</span>
                </li>
              ))}
            </ul>
          )}
          {!readOnly && (
            <div class="buttons">
              <button type="submit">{id === undefined ? 'Create template' : 'Save template'}</button>
            </div>
          )}
        </form>
      )}
      {(source === undefined || template !== undefined) && (
        <form ref={previewForm} method="post" action="/console/template-preview" target={PREVIEW_FRAME} hidden>
          <input type="hidden" name="html" value={preview} />
          <input type="hidden" name="csrf_token" value={currentCsrfToken()} />
        </form>
      )}
      <Messages state={messages} />
      {(source === undefined || template !== undefined) && <TemplateTestSend html={html} subject={name} />}
    </section>
  )
}
