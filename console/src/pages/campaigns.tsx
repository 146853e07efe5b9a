// Email campaigns (issue 21 item 5) through the public API. #/campaigns: the account's campaigns, newest first, 50 a
// page (GET /campaigns), with status and counts; #/campaigns/new: the form (campaign-form.tsx); #/campaigns/{id}: one
// campaign with its live progress (campaign-detail.tsx). The sub-routes are followed here, so the shell only maps the path.
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, usePageState } from '../parts/page-state.js'
import { CampaignDetail } from './campaign-detail.js'
import { CampaignForm } from './campaign-form.js'
import { statusWords, type CampaignItem } from './campaign-status.js'

const PAGE_SIZE = 50

type Route = { kind: 'list' } | { kind: 'new' } | { kind: 'detail'; id: number }

function routeOf(hash: string): Route {
  if (/^#\/campaigns\/new$/.test(hash)) return { kind: 'new' }
  const match = /^#\/campaigns\/([1-9]\d{0,15})$/.exec(hash)
  return match ? { kind: 'detail', id: Number(match[1]) } : { kind: 'list' }
}

export function CampaignsPage() {
  const [route, setRoute] = useState<Route>(() => routeOf(location.hash))
  useEffect(() => {
    const follow = () => setRoute(routeOf(location.hash))
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  if (route.kind === 'new') return <CampaignForm />
  if (route.kind === 'detail') return <CampaignDetail key={route.id} id={route.id} />
  return <CampaignList />
}

const count = (n: number) => n.toLocaleString('en')

function CampaignList() {
  const [offset, setOffset] = useState(0)
  const state = usePageState(() => api<CampaignItem[]>('GET', `/campaigns?limit=${PAGE_SIZE}&offset=${offset}`), [offset])
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Campaigns</h1>
      <p>
        <a class="button" href="#/campaigns/new">
          New campaign
        </a>
      </p>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading campaigns…</p>
      ) : state.data.length === 0 && offset === 0 ? (
        <p>No campaigns yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Campaigns with their status and counts</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">Recipients</th>
                <th scope="col" class="num">Sent</th>
                <th scope="col" class="num">Delivered</th>
                <th scope="col" class="num">Opened</th>
                <th scope="col" class="num">Clicked</th>
                <th scope="col" class="num">Bounced</th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <a href={`#/campaigns/${c.id}`}>{c.name === '' ? `Campaign ${c.id}` : c.name}</a>
                  </th>
                  <td data-label="Status">{statusWords(c)}</td>
                  <td class="num" data-label="Recipients">
                    {count(c.all_email_qty)}
                  </td>
                  <td class="num" data-label="Sent">
                    {count(c.statistics.sent)}
                  </td>
                  <td class="num" data-label="Delivered">
                    {count(c.statistics.delivered)}
                  </td>
                  <td class="num" data-label="Opened">
                    {count(c.statistics.opening)}
                  </td>
                  <td class="num" data-label="Clicked">
                    {count(c.statistics.link_redirected)}
                  </td>
                  <td class="num" data-label="Bounced">
                    {count(c.statistics.error)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.length ?? 0} onOffset={setOffset} />
    </section>
  )
}
