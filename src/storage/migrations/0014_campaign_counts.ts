// A campaign's messages counted per channel and status, with how many were sent, opened, clicked and unsubscribed:
// what GET /campaigns/{id}, GET /campaigns and a Viber campaign's statistics show, read from a few rows instead
// of counting a million messages per request (232 ms at p50 for 980,000 on SQLite, docs/benchmarks.md "Scale of
// work").
// Triggers on `messages` keep the counts in the statement that changes a message, so every writer (the copy, the
// dispatcher's recording, tracking, bounces, reports, receipts, cancels, deletes) is counted, in its own
// transaction: a rollback takes its counts with it, and no writer can forget them.
// - SQLite: one row per (campaign, channel, status), updated by row triggers (one writer: no contention).
// - PostgreSQL: rows of differences appended by statement triggers (one row per key a statement changed), never
//   updated, so concurrent writers never wait for one another on a count; a campaign's rows are folded into one per
//   key once there are more than 64 (rows another transaction is folding are skipped, never waited for). A
//   campaign's counts are the sums of its rows on both.
// The counts of existing messages are filled in after the triggers exist, in the same transaction.
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'
import { withId } from './helpers.js'

const COUNTED = ['messages', 'sent', 'opened', 'clicked', 'unsubscribed'] as const

function withCounts<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  const count = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
  return table
    .addColumn('campaign_id', 'bigint', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('messages', 'bigint', count)
    .addColumn('sent', 'bigint', count)
    .addColumn('opened', 'bigint', count)
    .addColumn('clicked', 'bigint', count)
    .addColumn('unsubscribed', 'bigint', count)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely runs SQLite migrations outside a transaction: the triggers and the counts of the rows already there
  // must be created together, or a write in between would be counted twice.
  if (isPostgres(db)) await create(db)
  else await db.transaction().execute(create)
}

async function create(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    // Rows of differences, several per key.
    await withCounts(withId(db, db.schema.createTable('campaign_counts'))).execute()
    await db.schema.createIndex('campaign_counts_campaign').on('campaign_counts').columns(['campaign_id', 'channel', 'status']).execute()
    await createPostgresTriggers(db)
  } else {
    // One row per key, the key its primary key in a table without rowid: a trigger's upsert walks one B-tree, not
    // a rowid table and a unique index (0.75–0.9 against 1.15 µs per copied recipient).
    await withCounts(db.schema.createTable('campaign_counts'))
      .addPrimaryKeyConstraint('campaign_counts_pk', ['campaign_id', 'channel', 'status'])
      .modifyEnd(sql`without rowid`)
      .execute()
    await createSqliteTriggers(db)
  }
  await sql`
    insert into campaign_counts (campaign_id, channel, status, messages, sent, opened, clicked, unsubscribed)
    select campaign_id, channel, status, count(*), count(sent_at), count(opened_at), count(clicked_at), count(unsubscribed_at)
    from messages group by campaign_id, channel, status`.execute(db)
}

async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const flags = (row: 'new' | 'old') => sql.raw(['sent_at', 'opened_at', 'clicked_at', 'unsubscribed_at'].map((c) => `${row}.${c} is not null`).join(', '))
  const add = sql`
    insert into campaign_counts (campaign_id, channel, status, messages, sent, opened, clicked, unsubscribed)
    values (new.campaign_id, new.channel, new.status, 1, ${flags('new')})
    on conflict (campaign_id, channel, status) do update set
      messages = messages + 1, sent = sent + excluded.sent, opened = opened + excluded.opened,
      clicked = clicked + excluded.clicked, unsubscribed = unsubscribed + excluded.unsubscribed;`
  const remove = sql`
    update campaign_counts set
      messages = messages - 1, sent = sent - (old.sent_at is not null), opened = opened - (old.opened_at is not null),
      clicked = clicked - (old.clicked_at is not null), unsubscribed = unsubscribed - (old.unsubscribed_at is not null)
    where campaign_id = old.campaign_id and channel = old.channel and status = old.status;`
  await sql`create trigger messages_counted_insert after insert on messages begin ${add} end`.execute(db)
  await sql`create trigger messages_counted_delete after delete on messages begin ${remove} end`.execute(db)
  // Only statements that set a counted column fire it (not a claim, a lease renewal or a reschedule), and only
  // for rows whose counts move.
  await sql`
    create trigger messages_counted_update
    after update of campaign_id, channel, status, sent_at, opened_at, clicked_at, unsubscribed_at on messages
    when old.campaign_id <> new.campaign_id or old.channel <> new.channel or old.status <> new.status
      or (old.sent_at is null) <> (new.sent_at is null) or (old.opened_at is null) <> (new.opened_at is null)
      or (old.clicked_at is null) <> (new.clicked_at is null) or (old.unsubscribed_at is null) <> (new.unsubscribed_at is null)
    begin ${remove} ${add} end`.execute(db)
  await sql`create trigger campaigns_counts_delete after delete on campaigns begin delete from campaign_counts where campaign_id = old.id; end`.execute(db)
}

async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  // Each row of a transition table as +1 (new) or -1 (old) of its key, and of each time it has.
  const signed = (rows: 'new_rows' | 'old_rows', sign: '' | '-') =>
    `select campaign_id, channel, status, ${sign}1 as messages, ${['sent_at', 'opened_at', 'clicked_at', 'unsubscribed_at'].map((c) => `${sign}(${c} is not null)::int as ${c.replace('_at', '')}`).join(', ')} from ${rows}`
  const sums = sql.raw(COUNTED.map((c) => `sum(${c})`).join(', '))
  const nonZero = sql.raw(COUNTED.map((c) => `sum(${c}) <> 0`).join(' or '))
  const insertSums = (changes: string) => sql`
    with added as (
      insert into campaign_counts (campaign_id, channel, status, messages, sent, opened, clicked, unsubscribed)
      select campaign_id, channel, status, ${sums} from (${sql.raw(changes)}) changes
      group by campaign_id, channel, status having ${nonZero}
      returning campaign_id)
    select coalesce(array_agg(distinct campaign_id), '{}') into touched from added;`
  // A campaign's rows beyond 64 are folded into one per key: its reads sum a few dozen rows at most.
  await sql`
    create function fold_campaign_counts(campaign bigint) returns void language plpgsql as $$
    begin
      if (select count(*) from (select 1 from campaign_counts where campaign_id = campaign limit 65) r) <= 64 then return; end if;
      with folded as (
        delete from campaign_counts
        where id in (select id from campaign_counts where campaign_id = campaign for update skip locked)
        returning campaign_id, channel, status, ${sql.raw(COUNTED.join(', '))})
      insert into campaign_counts (campaign_id, channel, status, ${sql.raw(COUNTED.join(', '))})
      select campaign_id, channel, status, ${sums} from folded
      group by campaign_id, channel, status having ${nonZero};
    end $$`.execute(db)
  await sql`
    create function count_message_changes() returns trigger language plpgsql as $$
    declare
      touched bigint[];
      campaign bigint;
    begin
      if tg_op = 'INSERT' then
        ${insertSums(signed('new_rows', ''))}
      elsif tg_op = 'DELETE' then
        ${insertSums(signed('old_rows', '-'))}
      else
        ${insertSums(`${signed('new_rows', '')} union all ${signed('old_rows', '-')}`)}
      end if;
      foreach campaign in array touched loop
        perform fold_campaign_counts(campaign);
      end loop;
      return null;
    end $$`.execute(db)
  await sql`create trigger messages_counted_insert after insert on messages referencing new table as new_rows for each statement execute function count_message_changes()`.execute(db)
  await sql`create trigger messages_counted_update after update on messages referencing old table as old_rows new table as new_rows for each statement execute function count_message_changes()`.execute(db)
  await sql`create trigger messages_counted_delete after delete on messages referencing old table as old_rows for each statement execute function count_message_changes()`.execute(db)
  await sql`
    create function forget_campaign_counts() returns trigger language plpgsql as $$
    begin
      delete from campaign_counts where campaign_id = old.id;
      return null;
    end $$`.execute(db)
  await sql`create trigger campaigns_counts_delete after delete on campaigns for each row execute function forget_campaign_counts()`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
