// Tenant HTML (a template being edited, its gallery thumbnail) as the document of a `sandbox=""` srcdoc frame: its
// own policy comes first, before anything of the HTML can load. A srcdoc frame also inherits the console's policy, so
// the HTML's inline styles do not apply there either; a captured message, which is stored, is served from its own
// route with its own policy instead (GET /outbox/{id}/body).
const FRAME_POLICY = "default-src 'none'; img-src data:"

export function messageDocument(html: string): string {
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}"><meta name="referrer" content="no-referrer">${html}`
}
