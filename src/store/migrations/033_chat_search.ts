/**
 * A trigram index of the handles and names a chat search matches, on SQLite (store/chat-search.ts).
 *
 * A search few chats match ordered every chat of the project: ~40 ms at 50,000 chats, on the
 * thread that serves every request, each time a console polls it. `chat_search_terms` holds each
 * lead's handle (under its direct chat's id, which is the lead's), each participant's handle and
 * each group name, by chat (the chat gives the project); `chat_search` (FTS5, trigram tokenizer)
 * indexes them by trigram. Triggers keep both in step with leads, chats and participants on
 * every path that writes them, and the index is filled from what is there now.
 *
 * On PostgreSQL the same texts are indexed where they are, by pg_trgm's GIN operator class: a
 * search with the extension reads those indexes (~50 ms → a few at 50,000 chats, of the
 * database's time). Creating the extension needs the CREATE privilege on the database (it is a
 * trusted extension); a role without it, or a server without the contrib package, gets no index
 * and the migration goes on: searches then read every chat, as before, and every start logs a
 * warning (main.ts; README, "Running on PostgreSQL", gives the statements that add them later).
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

const STATEMENTS = [
  // An integer key: kept by VACUUM, which may renumber an implicit rowid and so unhinge the index.
  `create table chat_search_terms (id integer primary key, chat_id text not null, term text not null)`,
  `create index chat_search_terms_chat on chat_search_terms (chat_id)`,
  // No positions or sizes kept (detail, columnsize): a LIKE needs neither, and a new lead's index
  // write costs about half as much without them.
  `create virtual table chat_search using fts5(term, content='chat_search_terms', content_rowid='id', tokenize='trigram', detail='none', columnsize=0)`,
  `create trigger chat_search_terms_ai after insert on chat_search_terms begin
     insert into chat_search (rowid, term) values (new.id, new.term);
   end`,
  `create trigger chat_search_terms_ad after delete on chat_search_terms begin
     insert into chat_search (chat_search, rowid, term) values ('delete', old.id, old.term);
   end`,
  `create trigger chat_search_leads_ai after insert on leads begin
     insert into chat_search_terms (chat_id, term) values (new.id, new.handle);
   end`,
  `create trigger chat_search_participants_ai after insert on chat_participants begin
     insert into chat_search_terms (chat_id, term) values (new.chat_id, new.handle);
   end`,
  `create trigger chat_search_participants_ad after delete on chat_participants begin
     delete from chat_search_terms where id = (select id from chat_search_terms where chat_id = old.chat_id and term = old.handle limit 1);
   end`,
  `create trigger chat_search_chats_ai after insert on chats when new.display_name is not null begin
     insert into chat_search_terms (chat_id, term) values (new.id, new.display_name);
   end`,
  `create trigger chat_search_chats_au after update of display_name on chats when new.display_name is not old.display_name begin
     delete from chat_search_terms where id = (select id from chat_search_terms where chat_id = old.id and term = old.display_name limit 1);
     insert into chat_search_terms (chat_id, term) select new.id, new.display_name where new.display_name is not null;
   end`,
  `insert into chat_search_terms (chat_id, term)
     select id, handle from leads
     union all select chat_id, handle from chat_participants
     union all select id, display_name from chats where display_name is not null`,
];

/** PostgreSQL's indexes: their expressions are those store/chat-search.ts searches by. */
const POSTGRES_INDEXES = ['chat_search_leads', 'chat_search_participants', 'chat_search_chats'];

// The extension's operator class is named in its own schema, wherever it was installed. An error
// in the inner block undoes that block alone, not the migrations' transaction. New entries wait
// in a pending list that every search reads through until it is merged: by default up to 4 MB
// (searches at 50,000 chats took 17–28 ms, the planner choosing to scan the table instead);
// merged at 256 kB, 0.3–0.5 ms, for ~23 µs more per new lead (bench/README).
const POSTGRES_UP = `do $$
declare ops text;
begin
  begin
    create extension if not exists pg_trgm;
  exception when others then
    raise notice 'chat search: pg_trgm not created (%), searches read every chat', sqlerrm;
  end;
  select quote_ident(n.nspname) || '.gin_trgm_ops' into ops
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
  if ops is not null then
    execute format('create index chat_search_leads on leads using gin (lower(handle) %s) with (gin_pending_list_limit = 256)', ops);
    execute format('create index chat_search_participants on chat_participants using gin (lower(handle) %s) with (gin_pending_list_limit = 256)', ops);
    execute format('create index chat_search_chats on chats using gin (lower(display_name) %s) with (gin_pending_list_limit = 256)', ops);
  end if;
end $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    await sql.raw(POSTGRES_UP).execute(db);
    return;
  }
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    for (const name of POSTGRES_INDEXES) await sql.raw(`drop index if exists ${name}`).execute(db);
    return;
  }
  for (const trigger of ['chat_search_chats_au', 'chat_search_chats_ai', 'chat_search_participants_ad', 'chat_search_participants_ai', 'chat_search_leads_ai']) {
    await sql.raw(`drop trigger ${trigger}`).execute(db);
  }
  await sql.raw('drop table chat_search').execute(db);
  await sql.raw('drop table chat_search_terms').execute(db);
}
