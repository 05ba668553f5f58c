/**
 * A line's one-to-one chats by the provider's own name for them (BlueBubbles' chat guid): a Mac
 * names them `iMessage;-;+1…`, `SMS;-;+1…` or, on newer macOS, `any;-;+1…`, and a Private API
 * send to a guid it does not have fails. The driver keeps the name it learnt (a chat it created,
 * a message that arrived) for every process (store/line-direct-chats.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('line_direct_chats')
    .addColumn('line_id', 'text', (c) => c.notNull())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('chat_key', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('line_direct_chats_pk', ['line_id', 'handle'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('line_direct_chats').execute();
}
