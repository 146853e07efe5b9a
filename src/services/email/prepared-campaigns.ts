// Email campaign content prepared once (delivery/email/campaign-content.ts) and kept while the campaign row is
// unchanged (sending/campaign-cache.ts).
import { prepareCampaign } from '../../delivery/email/campaign-content.js'
import { perCampaignCache } from '../sending/campaign-cache.js'

export const preparedCampaign = perCampaignCache(prepareCampaign)
