// The SMS page (issue 21 item 7): campaigns, the numbers of a list, the SMS blacklist and sender names, each a
// section at its own hash (#/sms/numbers), all through the public SMS API (API.md 4.11).
import { SectionedPage, type Section } from '../parts/sections.js'
import { SmsBlacklist } from './sms-blacklist.js'
import { SmsCampaigns } from './sms-campaigns.js'
import { SmsNumbers } from './sms-numbers.js'
import { SmsSenders } from './sms-senders.js'

const SECTIONS: Section[] = [
  { path: 'campaigns', title: 'Campaigns', Component: SmsCampaigns },
  { path: 'numbers', title: 'Numbers', Component: SmsNumbers },
  { path: 'blacklist', title: 'Blacklist', Component: SmsBlacklist },
  { path: 'senders', title: 'Sender names', Component: SmsSenders },
]

export function SmsPage() {
  return <SectionedPage page="sms" title="SMS" sections={SECTIONS} />
}
