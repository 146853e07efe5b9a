// Every page of the console, in the order of the navigation.
export interface PageEntry {
  path: string
  title: string
}

export const PAGES: PageEntry[] = [
  { path: 'dashboard', title: 'Dashboard' },
  { path: 'lists', title: 'Lists' },
  { path: 'templates', title: 'Templates' },
  { path: 'campaigns', title: 'Campaigns' },
  { path: 'senders', title: 'Senders' },
  { path: 'blacklist', title: 'Blacklist' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'balance', title: 'Balance' },
  { path: 'outbox', title: 'Outbox' },
  { path: 'sms', title: 'SMS' },
  { path: 'viber', title: 'Viber' },
]

/** The page the hash names (#/lists; #/lists/12 is a list's contacts, under Lists), or the Dashboard. */
export function pageOf(hash: string): PageEntry {
  const path = hash.replace(/^#\/?/, '').split('/')[0]
  return PAGES.find((p) => p.path === path) ?? PAGES[0]!
}

/** The list whose contacts the hash names (#/lists/12 → 12), if any. */
export function listIdOf(hash: string): number | undefined {
  const match = /^#\/lists\/([1-9]\d{0,15})$/.exec(hash)
  return match ? Number(match[1]) : undefined
}
