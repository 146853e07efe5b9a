// The pages of issue 21 item 6 by path (the shell, app.tsx, picks Lists itself); a page not here is not built yet.
import type { PageEntry } from '../pages.js'
import { BalancePage } from './balance.js'
import { BlacklistPage } from './blacklist.js'
import { DashboardPage } from './dashboard.js'
import { NotBuilt } from './not-built.js'
import { OutboxPage } from './outbox.js'
import { SendersPage } from './senders.js'

const BY_PATH: Record<string, () => preact.JSX.Element> = {
  dashboard: DashboardPage,
  senders: SendersPage,
  blacklist: BlacklistPage,
  balance: BalancePage,
  outbox: OutboxPage,
}

export function MorePage({ page }: { page: PageEntry }) {
  const Page = BY_PATH[page.path]
  return Page ? <Page key={page.path} /> : <NotBuilt title={page.title} />
}
