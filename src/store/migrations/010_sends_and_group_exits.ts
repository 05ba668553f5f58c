/**
 * Issue 16: a message is recorded `sending` until its line answers, and start-up reconciles the
 * ones a crash left so; the partial index holds only those, so the sweep never scans history.
 * A group the line left keeps its history but takes no more messages or changes: `left_at`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_sending').on('messages').columns(['sent_at']).where(sql.ref('status'), '=', 'sending').execute();
  await db.schema.alterTable('chats').addColumn('left_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_sending').execute();
  await db.schema.alterTable('chats').dropColumn('left_at').execute();
}
