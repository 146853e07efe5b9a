// The system templates shipped with Tidings (storage/seeds/system-templates.ts), inserted once. Their string
// ids are `system-<slug>`, stable across installations.
import type { Kysely } from 'kysely'
import { SYSTEM_TEMPLATES } from '../seeds/system-templates.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = Date.now()
  await (db as Kysely<{ templates: Record<string, unknown> }>)
    .insertInto('templates')
    .values(
      SYSTEM_TEMPLATES.map((t) => ({
        account_id: null,
        public_id: `system-${t.slug}`,
        name: t.name,
        name_slug: t.slug,
        lang: t.lang,
        body: t.html,
        description: t.description,
        category: t.category,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
