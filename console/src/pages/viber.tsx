// The Viber page (issue 21 item 7): campaigns, sender names and the Viber blacklist, each a section at its own
// hash (#/viber/blacklist), all through the public Viber API (API.md 4.10).
import { SectionedPage, type Section } from '../parts/sections.js'
import { ViberBlacklist } from './viber-blacklist.js'
import { ViberCampaigns } from './viber-campaigns.js'
import { ViberSenders } from './viber-senders.js'

const SECTIONS: Section[] = [
  { path: 'campaigns', title: 'Campaigns', Component: ViberCampaigns },
  { path: 'senders', title: 'Sender names', Component: ViberSenders },
  { path: 'blacklist', title: 'Blacklist', Component: ViberBlacklist },
]

export function ViberPage() {
  return <SectionedPage page="viber" title="Viber" sections={SECTIONS} />
}
