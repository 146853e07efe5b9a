// Sign-in with the account's client credentials, or with one of its API keys. A refusal says the credentials are
// wrong without saying which field: the server does not tell either (401 invalid_client for all of them).
import { useState } from 'preact/hooks'
import { ApiError, signIn, type Credentials, type Session } from '../api.js'

const WRONG = 'Sign-in failed: these credentials do not match an enabled account.'

export function SignIn({ notice, onSignedIn }: { notice?: string; onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const [withKey, setWithKey] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const field = (name: string) => String(form.get(name) ?? '')
    const credentials: Credentials = withKey ? { apiKey: field('api_key') } : { clientId: field('client_id'), clientSecret: field('client_secret') }
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await signIn(credentials))
    } catch (err) {
      setError(messageOf(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>Sign in to Tidings</h1>
      {notice && <p class="notice">{notice}</p>}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        {withKey ? (
          <div class="field">
            <label for="api_key">API key</label>
            <input id="api_key" name="api_key" type="password" autocomplete="off" required spellcheck={false} />
          </div>
        ) : (
          <>
            <div class="field">
              <label for="client_id">Client ID</label>
              <input id="client_id" name="client_id" autocomplete="username" required spellcheck={false} />
            </div>
            <div class="field">
              <label for="client_secret">Client secret</label>
              <input id="client_secret" name="client_secret" type="password" autocomplete="current-password" required />
            </div>
          </>
        )}
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <button type="button" class="link" onClick={() => setWithKey(!withKey)}>
        {withKey ? 'Use the client ID and secret instead' : 'Use an API key instead'}
      </button>
    </main>
  )
}

function messageOf(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) {
    return err.retryAfterSeconds ? `Too many failed attempts. Try again in ${err.retryAfterSeconds} seconds.` : WRONG
  }
  if (err instanceof ApiError) return `Sign-in failed: ${err.message}`
  return 'The server could not be reached.'
}
