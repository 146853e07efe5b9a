// A page issue 21 lists but this version does not have yet: it says so and shows no data at all.
export function NotBuilt({ title }: { title: string }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <p>This page is not built yet. The API has it already: see the API documentation at <a href="/docs">/docs</a>.</p>
    </section>
  )
}
