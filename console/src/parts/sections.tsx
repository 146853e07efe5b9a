// A page made of sections, each at its own hash (#/sms/numbers): the page's heading, links to its sections (the
// current one marked), and the section the hash names (the first one when it names none). The shell re-renders a
// page only when the page changes, so the page follows its own sub-route here.
import { useEffect, useState } from 'preact/hooks'

export interface Section {
  path: string
  title: string
  Component: () => preact.JSX.Element
}

/** The section the hash names under `page` (#/sms/blacklist → blacklist), or the first one. */
export function sectionOf(hash: string, page: string, sections: readonly Section[]): Section {
  const [, sub] = hash.replace(/^#\/?/, '').split('/')
  const [first] = sections
  if (!first) throw new Error(`${page} has no sections`)
  return sections.find((s) => s.path === sub) ?? first
}

export function SectionedPage({ page, title, sections }: { page: string; title: string; sections: readonly Section[] }) {
  const [section, setSection] = useState(() => sectionOf(location.hash, page, sections))
  useEffect(() => {
    const follow = () => setSection(sectionOf(location.hash, page, sections))
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  const { Component } = section
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <nav class="sections" aria-label={`${title} sections`}>
        <ul>
          {sections.map((s) => (
            <li key={s.path}>
              <a href={`#/${page}/${s.path}`} aria-current={s === section ? 'page' : undefined}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Component key={section.path} />
    </section>
  )
}

/** The numbers typed in a box, as typed: separated by commas, semicolons, spaces or lines (the API reads each one). */
export function phonesOf(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean)
}

/** A <input type="datetime-local"> value (read as UTC) as the API's `YYYY-MM-DD HH:MM:SS`; "" stays "". */
export function wireDateOf(local: string): string {
  if (local === '') return ''
  const [date, time = '00:00'] = local.split('T')
  return `${date} ${time.length === 5 ? `${time}:00` : time}`
}
