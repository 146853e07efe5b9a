// Issue 21: the console's dashboard shows an account's emails per UTC day (GET /statistics/email/daily). Counting
// them from the message rows costs a read of every message of the period at each load, growing with the account:
// with bench/dashboard.ts's 1,000,000 (814,000 in 30 days), 3.8 s a call on SQLite from a covering partial index
// (0.6 s for the sums alone, without the days), 0.5 s on PostgreSQL only to count them; now 2–16 ms. So triggers
// on `messages` keep the counts per account and day, as 0014 keeps campaign_counts (per campaign, with no days),
// in the statement that changes a message: every writer counted, a rollback takes its counts with it.
//
// A message counts once a mail server answered it (its status is neither queued, waiting for a retry, nor never
// sent), on the UTC day of that answer: `sent_at` when the relay took it, `updated_at` when the relay refused it
// outright (no `sent_at`; the refusal is its last write). What became of it since moves it between the columns of
// that day: delivered (2, 3, 4, 5, 11: opened, clicked, unsubscribed and complained included), bounced (any other
// status but 1, "sent"), opened, clicked, complained (11). Only email: SMS and Viber messages are other channels.
// - SQLite: one row per (account, day), upserted by row triggers whose WHEN skips the writes that change nothing
//   counted (a copy of queued recipients, a claim, a lease renewal).
// - PostgreSQL: rows of differences appended by statement triggers, never updated, folded into one per key once a
//   key has more than 64 (as campaign_counts).
// The counts of existing messages are filled in after the triggers exist, in the same transaction.
import { sql, type CreateTableBuilder, type Kysely, type RawBuilder } from 'kysely'
import { isPostgres } from '../dialect.js'
import { withId } from './helpers.js'

const DAY_MS = 86_400_000
const COUNTED = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'] as const

/** Each counted column of a message row (`new`, `old`, or none for a table's own rows) as 0 or 1, signed, named as in email_day_counts. */
function contribution(row: string, sign: '' | '-', named = true): RawBuilder<unknown> {
  const r = row ? `${row}.` : ''
  const flag = (condition: string) => `${sign}(case when ${condition} then 1 else 0 end)`
  const values = [
    `${r}account_id`,
    `coalesce(${r}sent_at, ${r}updated_at) / ${DAY_MS}`,
    `${sign}1`,
    flag(`(${r}status between 2 and 5 or ${r}status = 11)`),
    flag(`${r}opened_at is not null`),
    flag(`${r}clicked_at is not null`),
    flag(`not (${r}status between 1 and 5 or ${r}status = 11)`),
    flag(`${r}status = 11`),
  ]
  return sql.raw((named ? values.map((v, i) => `${v} as ${['account_id', 'day', ...COUNTED][i]}`) : values).join(', '))
}

/** Counted: an email a mail server answered. */
const answered = (row: string) => {
  const r = row ? `${row}.` : ''
  return sql.raw(`${r}channel = 'email' and ${r}status <> 0 and ${r}status <> 7 and ${r}status <> 13`)
}

const columns = sql.raw(`account_id, day, ${COUNTED.join(', ')}`)

export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely runs SQLite migrations outside a transaction: the triggers and the counts of the rows already there
  // must be created together, or a write in between would be counted twice.
  if (isPostgres(db)) await create(db)
  else await db.transaction().execute(create)
}

async function create(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await withCounts(withId(db, db.schema.createTable('email_day_counts'))).execute()
    await db.schema.createIndex('email_day_counts_day').on('email_day_counts').columns(['account_id', 'day']).execute()
    await createPostgresFunctions(db)
    await createPostgresTriggers(db)
  } else {
    await withCounts(db.schema.createTable('email_day_counts')).addPrimaryKeyConstraint('email_day_counts_pk', ['account_id', 'day']).modifyEnd(sql`without rowid`).execute()
    await createSqliteTriggers(db)
  }
  await sql`
    insert into email_day_counts (${columns})
    select account_id, day, ${sql.raw(COUNTED.map((c) => `sum(${c})`).join(', '))}
    from (select ${contribution('', '')} from messages where ${answered('')}) answers
    group by account_id, day`.execute(db)
}

function withCounts<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  let built = table.addColumn('account_id', 'bigint', (c) => c.notNull()).addColumn('day', 'integer', (c) => c.notNull())
  for (const column of COUNTED) built = built.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
  return built
}

/** The trigger statements, exported for bench/dashboard.ts, which times sending with and without them. */
export async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  // An upsert of VALUES, each trigger's WHEN deciding whether it runs (one trigger whose INSERT … SELECT … WHERE
  // decided cost more); statuses compared one by one, not by IN lists, which SQLite builds a table for at each
  // firing: the triggers cost 1.2 µs of CPU per message sent, 7 with IN lists (claimed and recorded 50 a statement).
  const upsert = (row: 'new' | 'old', sign: '' | '-') => sql`
    insert into email_day_counts (${columns}) values (${contribution(row, sign, false)})
    on conflict (account_id, day) do update set ${sql.raw(COUNTED.map((c) => `${c} = ${c} + excluded.${c}`).join(', '))};`
  // Only changes of what is counted fire the update triggers: a claim, a lease renewal, a retry's reschedule do not.
  const changed = sql`(old.status <> new.status or old.channel <> new.channel or old.account_id <> new.account_id
      or coalesce(old.sent_at, old.updated_at) / ${sql.lit(DAY_MS)} <> coalesce(new.sent_at, new.updated_at) / ${sql.lit(DAY_MS)}
      or (old.opened_at is null) <> (new.opened_at is null) or (old.clicked_at is null) <> (new.clicked_at is null))`
  const updateOf = sql.raw('after update of status, channel, account_id, sent_at, updated_at, opened_at, clicked_at on messages')
  await sql`create trigger messages_days_insert after insert on messages when ${answered('new')} begin ${upsert('new', '')} end`.execute(db)
  await sql`create trigger messages_days_delete after delete on messages when ${answered('old')} begin ${upsert('old', '-')} end`.execute(db)
  await sql`create trigger messages_days_update_old ${updateOf} when ${answered('old')} and ${changed} begin ${upsert('old', '-')} end`.execute(db)
  await sql`create trigger messages_days_update_new ${updateOf} when ${answered('new')} and ${changed} begin ${upsert('new', '')} end`.execute(db)
}

async function createPostgresFunctions(db: Kysely<unknown>): Promise<void> {
  const signed = (rows: 'new_rows' | 'old_rows', sign: '' | '-') => sql`select ${contribution('', sign)} from ${sql.raw(rows)} where ${answered('')}`
  const sums = sql.raw(COUNTED.map((c) => `sum(${c})`).join(', '))
  const nonZero = sql.raw(COUNTED.map((c) => `sum(${c}) <> 0`).join(' or '))
  const insertSums = (changes: RawBuilder<unknown>) => sql`
    with added as (
      insert into email_day_counts (${columns})
      select account_id, day, ${sums} from (${changes}) changes
      group by account_id, day having ${nonZero}
      returning account_id, day)
    select coalesce(array_agg(account_id), '{}'), coalesce(array_agg(day), '{}') into accounts, days from (select distinct account_id, day from added) keys;`
  // A key's rows beyond 64 are folded into one: a read of 90 days sums a few thousand rows at most.
  await sql`
    create function fold_email_day_counts(account bigint, the_day integer) returns void language plpgsql as $$
    begin
      if (select count(*) from (select 1 from email_day_counts where account_id = account and day = the_day limit 65) r) <= 64 then return; end if;
      with folded as (
        delete from email_day_counts
        where id in (select id from email_day_counts where account_id = account and day = the_day for update skip locked)
        returning ${columns})
      insert into email_day_counts (${columns})
      select account_id, day, ${sums} from folded group by account_id, day having ${nonZero};
    end $$`.execute(db)
  await sql`
    create function count_email_days() returns trigger language plpgsql as $$
    declare
      accounts bigint[];
      days integer[];
    begin
      -- Most statements change no answered email (a copy of queued recipients, a claim, a lease renewal): they leave
      -- at the first test.
      if tg_op = 'INSERT' then
        if not exists (select 1 from new_rows where ${answered('')}) then return null; end if;
        ${insertSums(signed('new_rows', ''))}
      elsif tg_op = 'DELETE' then
        ${insertSums(signed('old_rows', '-'))}
      else
        if not exists (select 1 from new_rows where ${answered('')}) and not exists (select 1 from old_rows where ${answered('')}) then return null; end if;
        ${insertSums(sql`${signed('new_rows', '')} union all ${signed('old_rows', '-')}`)}
      end if;
      for i in 1 .. coalesce(array_length(accounts, 1), 0) loop
        perform fold_email_day_counts(accounts[i], days[i]);
      end loop;
      return null;
    end $$`.execute(db)
}

export async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger messages_days_insert after insert on messages referencing new table as new_rows for each statement execute function count_email_days()`.execute(db)
  await sql`create trigger messages_days_update after update on messages referencing old table as old_rows new table as new_rows for each statement execute function count_email_days()`.execute(db)
  await sql`create trigger messages_days_delete after delete on messages referencing old table as old_rows for each statement execute function count_email_days()`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
