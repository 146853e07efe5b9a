// The page component of each path of the navigation (pages.ts), but Lists: the shell (app.tsx) picks that one
// itself, as a list's contacts live under it (#/lists/12).
import type { PageEntry } from '../pages.js'
import { BalancePage } from './balance.js'
import { BlacklistPage } from './blacklist.js'
import { CampaignsPage } from './campaigns.js'
import { DashboardPage } from './dashboard.js'
import { OutboxPage } from './outbox.js'
import { SendersPage } from './senders.js'
import { WebhooksPage } from './webhooks.js'
import { TemplatesPage } from './templates.js'
import { SmsPage } from './sms.js'
import { ViberPage } from './viber.js'

const BY_PATH: Record<string, () => preact.JSX.Element> = {
  dashboard: DashboardPage,
  senders: SendersPage,
  blacklist: BlacklistPage,
  balance: BalancePage,
  outbox: OutboxPage,
  webhooks: WebhooksPage,
  templates: TemplatesPage,
  campaigns: CampaignsPage,
  sms: SmsPage,
  viber: ViberPage,
}

export function MorePage({ page }: { page: PageEntry }) {
  const Page = BY_PATH[page.path]!
  return <Page key={page.path} />
}
