// One campaign (#/campaigns/{id}): its status in words and, while it is not finished, its progress read again every
// 2 s (GET /campaigns/{id}: sent, delivered, bounced, opened, clicked); polling stops once it is finished or the page
// is left. Below it, the report (campaign-report.tsx). "Cancel" (DELETE /campaigns/{id}, after a confirmation) while it is scheduled or sending.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { messageOf } from '../parts/dialog.js'
import { Messages } from '../parts/page-state.js'
import { CampaignReport } from './campaign-report.js'
import { isCancelable, isFinished, isScheduled, messagesDone, statusWords, type Campaign } from './campaign-status.js'

/** Often enough to watch a campaign go out, rarely enough to cost the server nothing: one indexed read of a few counts. */
const POLL_MS = 2000

const count = (n: number) => n.toLocaleString('en')

export function CampaignDetail({ id }: { id: number }) {
  const [campaign, setCampaign] = useState<Campaign | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [status, setStatus] = useState('')
  const [confirming, setConfirming] = useState(false)
  /** Bumped after a change: reads the campaign again (and polls again if it is still not finished). */
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    let left = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      try {
        const read = await api<Campaign>('GET', `/campaigns/${id}`)
        if (left) return
        setCampaign(read)
        setError(undefined)
        if (isFinished(read.status)) return
      } catch (err) {
        if (left) return
        setError(messageOf(err))
        // Not found (or not this account's): nothing more will come.
        if (err instanceof ApiError && err.status === 404) return
      }
      timer = setTimeout(() => void poll(), POLL_MS)
    }
    void poll()
    return () => {
      left = true
      clearTimeout(timer)
    }
  }, [id, generation])

  const cancel = async () => {
    try {
      await api('DELETE', `/campaigns/${id}`)
      setStatus('Campaign canceled: its unsent messages will not be sent.')
      setError(undefined)
    } catch (err) {
      setError(messageOf(err))
    }
    setConfirming(false)
    setGeneration(generation + 1)
  }

  const title = campaign ? (campaign.name === '' ? `Campaign ${id}` : campaign.name) : `Campaign ${id}`
  return (
    <section aria-labelledby="page-title">
      <p>
        <a href="#/campaigns">Back to the campaigns</a>
      </p>
      <h1 id="page-title">{title}</h1>
      <Messages state={{ status, error }} />
      {campaign === undefined ? (
        !error && <p>Loading the campaign…</p>
      ) : (
        <>
          <dl class="facts">
            <div>
              <dt>Status</dt>
              <dd>{statusWords(campaign)}</dd>
            </div>
            <div>
              <dt>Subject</dt>
              <dd>{campaign.message.subject}</dd>
            </div>
            <div>
              <dt>From</dt>
              <dd>
                {campaign.message.sender_name} &lt;{campaign.message.sender_email}&gt;
              </dd>
            </div>
            <div>
              <dt>{isScheduled(campaign) ? 'Sends at (UTC)' : 'Send date (UTC)'}</dt>
              <dd>{campaign.send_date}</dd>
            </div>
          </dl>
          <Progress campaign={campaign} />
          {isCancelable(campaign.status) && (
            <div class="buttons">
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                Cancel campaign
              </button>
            </div>
          )}
          <p>
            Its messages as sent: the <a href="#/outbox">Outbox</a> with campaign ID {id}.
          </p>
          {/* Read again when the status changes: a campaign that finishes shows its final figures. */}
          <CampaignReport key={campaign.status} campaignId={id} />
        </>
      )}
      {confirming && campaign && (
        <ConfirmDialog title={`Cancel “${title}”?`} confirm="Cancel the campaign" keep="Keep it" onConfirm={cancel} onCancel={() => setConfirming(false)}>
          <p>Messages not sent yet will not be sent. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  )
}

function Progress({ campaign }: { campaign: Campaign }) {
  const total = campaign.all_email_qty
  const done = Math.min(messagesDone(campaign), total)
  const percent = total === 0 ? (isFinished(campaign.status) ? 100 : 0) : Math.floor((done * 100) / total)
  const s = campaign.statistics
  return (
    <div class="campaign-progress">
      <label for="campaign-progress">Sending progress</label>
      <progress id="campaign-progress" max={100} value={percent} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${percent} %`} />
      <p>
        {count(done)} of {count(total)} messages done ({percent} %)
        {campaign.skipped_email_qty > 0 && `; ${count(campaign.skipped_email_qty)} contacts of the lists left out (not active, blacklisted or listed twice)`}.
      </p>
      <dl class="facts counts">
        {(
          [
            ['Sent', s.sent],
            ['Delivered', s.delivered],
            ['Bounced', s.error],
            ['Opened', s.opening],
            ['Clicked', s.link_redirected],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{count(value)}</dd>
          </div>
        ))}
      </dl>
    </div>
  )
}
