// Every page issue 21 lists, in the order of the navigation. `built: false` pages are named as not built yet and
// show nothing else: never sample data.
export interface PageEntry {
  path: string
  title: string
  built: boolean
}

export const PAGES: PageEntry[] = [
  { path: 'dashboard', title: 'Dashboard', built: true },
  { path: 'lists', title: 'Lists', built: true },
  { path: 'templates', title: 'Templates', built: false },
  { path: 'campaigns', title: 'Campaigns', built: false },
  { path: 'senders', title: 'Senders', built: true },
  { path: 'blacklist', title: 'Blacklist', built: true },
  { path: 'webhooks', title: 'Webhooks', built: false },
  { path: 'balance', title: 'Balance', built: true },
  { path: 'outbox', title: 'Outbox', built: true },
  { path: 'sms', title: 'SMS', built: false },
  { path: 'viber', title: 'Viber', built: false },
]

/** The page the hash names (#/lists; #/lists/12 is a list's contacts, under Lists), or the first built one. */
export function pageOf(hash: string): PageEntry {
  const path = hash.replace(/^#\/?/, '').split('/')[0]
  return PAGES.find((p) => p.path === path) ?? PAGES.find((p) => p.built) ?? PAGES[0]!
}

/** The list whose contacts the hash names (#/lists/12 → 12), if any. */
export function listIdOf(hash: string): number | undefined {
  const match = /^#\/lists\/([1-9]\d{0,15})$/.exec(hash)
  return match ? Number(match[1]) : undefined
}
