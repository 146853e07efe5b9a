// One term and its value in a `<dl class="facts">`: the wrapping div is what lets styles.css lay the pairs out as a
// grid of cards (a dl may group its dt/dd pairs in divs), so every page writes the three tags the same way.
import type { ComponentChildren } from 'preact'

export function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  )
}
