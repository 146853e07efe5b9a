// The shell: signed out, the sign-in form; signed in, the header (account, "Sign out"), the navigation and the page
// the location's hash names. Hash routes (#/lists) need no server-side fallback.
import { useEffect, useState } from 'preact/hooks'
import { readSession, signOut, whenSignedOut, type Session } from './api.js'
import { PAGES, listIdOf, pageOf, type PageEntry } from './pages.js'
import { SignIn } from './pages/sign-in.js'
import { ListsPage } from './pages/lists.js'
import { ContactsPage } from './pages/contacts.js'
import { MorePage } from './pages/more.js'
import { CampaignReportPage, reportCampaignIdOf } from './pages/campaign-report.js'

type State = { kind: 'loading' } | { kind: 'signed-out'; notice?: string } | { kind: 'signed-in'; session: Session }

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' })
  const [page, setPage] = useState<PageEntry>(() => pageOf(location.hash))
  const [listId, setListId] = useState<number | undefined>(() => listIdOf(location.hash))
  const [reportId, setReportId] = useState<number | undefined>(() => reportCampaignIdOf(location.hash))
  // Narrow screens fold the navigation behind a "Menu" button; wide ones always show it (styles.css).
  const [menuOpen, setMenuOpen] = useState(false)

  useEffect(() => {
    whenSignedOut(() => setState({ kind: 'signed-out', notice: 'Your session ended. Sign in again.' }))
    readSession().then(
      (session) => setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      () => setState({ kind: 'signed-out', notice: 'The server could not be reached.' }),
    )
    const follow = () => {
      setPage(pageOf(location.hash))
      setListId(listIdOf(location.hash))
      setReportId(reportCampaignIdOf(location.hash))
    }
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])

  useEffect(() => {
    document.title = state.kind === 'signed-in' ? `${page.title} · Tidings` : 'Sign in · Tidings'
  }, [state.kind, page, listId])

  if (state.kind === 'loading') return <p class="loading">Loading…</p>
  if (state.kind === 'signed-out') return <SignIn notice={state.notice} onSignedIn={(session) => setState({ kind: 'signed-in', session })} />

  const leave = async () => {
    try {
      await signOut()
    } finally {
      setState({ kind: 'signed-out', notice: 'You are signed out.' })
    }
  }
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/lists">
          Tidings
        </a>
        <span class="account" title="Signed in account">
          {state.session.accountName}
        </span>
        <button type="button" class="secondary" onClick={leave}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console pages">
        <button type="button" class="secondary menu" aria-expanded={menuOpen} aria-controls="pages" onClick={() => setMenuOpen(!menuOpen)}>
          Menu: {page.title}
        </button>
        <ul id="pages" class={menuOpen ? 'open' : undefined}>
          {PAGES.map((p) => (
            <li key={p.path}>
              <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {p.title}
                {!p.built && <span class="soon"> (not built yet)</span>}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{reportId !== undefined ? <CampaignReportPage key={reportId} campaignId={reportId} /> : page.path !== 'lists' ? <MorePage page={page} /> : listId === undefined ? <ListsPage /> : <ContactsPage key={listId} listId={listId} />}</main>
    </div>
  )
}
