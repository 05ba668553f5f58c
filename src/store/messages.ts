/** Messages of a chat, in and out, with their delivery state. */
import { numOrNull } from './rows.js';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './db.js';
import type { DB } from './schema.js';
import { columnsOf, first, prepared, preparedInsert } from './prepared.js';

export type MessagePart =
  | { type: 'text'; value: string }
  | { type: 'media'; attachment_id: string; filename?: string; mime_type?: string; size_bytes?: number }
  | { type: 'voice_note'; voice_note_id: string; duration_seconds?: number }
  | { type: 'rich_link'; url: string };

export type Message = Omit<DB['messages'], 'parts' | 'first_touch'> & { parts: MessagePart[]; first_touch: boolean };

const toMessage = (r: DB['messages']): Message => ({
  ...r,
  parts: JSON.parse(r.parts) as MessagePart[],
  first_touch: r.first_touch === 1,
  sent_at: Number(r.sent_at),
  delivered_at: numOrNull(r.delivered_at),
  read_at: numOrNull(r.read_at),
  edited_at: numOrNull(r.edited_at),
});

// The statements of an inbound message, built once (prepared.ts).
const insertMessageQ = preparedInsert(
  'messages',
  columnsOf<DB['messages']>({
    id: true, tenant_id: true, chat_id: true, line_id: true, direction: true, sender_handle: true, parts: true, effect: true, status: true,
    provider_guid: true, first_touch: true, error_code: true, sent_at: true, delivered_at: true, read_at: true, edited_at: true,
  }),
);
const messageByGuidQ = prepared<{ lineId: string; guid: string }, DB['messages']>(['lineId', 'guid'], (db, p) =>
  db.selectFrom('messages').selectAll().where('line_id', '=', p.lineId).where('provider_guid', '=', p.guid),
);

// The line answered a send: its guid, and `sent` unless a receipt or edit already moved it on.
const markSentQ = prepared<{ id: string; guid: string }>(['id', 'guid'], (db, p) =>
  db
    .updateTable('messages')
    .set({ provider_guid: p.guid, error_code: null, status: sql`case when status in ('sending', 'failed') then 'sent' else status end` })
    .where('id', '=', p.id),
);
// Receipts come in bursts (a line reports many at once; the simulator's timers fire together).
// Neither kind may undo the other, whatever their order; of two receipts of a kind for one
// message, the first one reported sets the time.
const RECEIPT_SET = {
  delivered: (at: unknown) => sql`status = case when status in ('read', 'edited') then status else 'delivered' end, delivered_at = coalesce(delivered_at, ${at})`,
  // An edited message stays `edited` (the spec's last state for it); its receipts still set the times.
  read: (at: unknown) => sql`status = case when status = 'edited' then status else 'read' end, read_at = coalesce(read_at, ${at}), delivered_at = coalesce(delivered_at, ${at})`,
};
const RECEIPT_WHERE = sql`direction = 'outbound' and status != 'failed'`;
/** SQLite: one receipt a statement (a statement costs microseconds there; a joined batch costs more). */
const receiptQ = (kind: 'delivered' | 'read') =>
  prepared<{ lineId: string; guid: string; atMs: number }>(['lineId', 'guid', 'atMs'], (_db, p) =>
    sql`update messages set ${RECEIPT_SET[kind](p.atMs)} where line_id = ${p.lineId} and provider_guid = ${p.guid} and ${RECEIPT_WHERE}`,
  );
/**
 * PostgreSQL: a batch in one statement (one round trip), as two arrays so the SQL is the same for
 * any size. `provider_guid = any(…)` keeps both index columns in the index condition whatever
 * plan the server caches: a plan made while the table was small would otherwise read every
 * message of the line for each batch.
 */
const receiptBatchQ = (kind: 'delivered' | 'read') =>
  prepared<{ lineId: string; guids: string[]; ats: number[] }, { provider_guid: string }>(['lineId', 'guids', 'ats'], (_db, p) =>
    sql`update messages set ${RECEIPT_SET[kind](sql.ref('r.at'))}
        from unnest(${p.guids}::text[], ${p.ats}::bigint[]) as r(guid, at)
        where line_id = ${p.lineId} and provider_guid = any(${p.guids}::text[]) and provider_guid = r.guid and ${RECEIPT_WHERE}
        returning provider_guid`,
  );

/** Literal, not a parameter: the partial first-touch indexes (migration 005) apply only then. */
export const FIRST_TOUCH = sql<boolean>`first_touch = 1`;
/** The `messages_sending` partial index's predicate (migration 013): with `status = 'sending'` after it, a few rows whatever the history. */
export const SENDING_INDEXED = sql<boolean>`direction = 'outbound' and provider_guid is null and error_code is null`;

export function messagesRepo(db: Kysely<DB>, dialect: Dialect) {
  const receipt = { delivered: receiptQ('delivered'), read: receiptQ('read') };
  const receiptBatch = { delivered: receiptBatchQ('delivered'), read: receiptBatchQ('read') };
  return {
    async insert(m: Message): Promise<void> {
      await insertMessageQ(db, { ...m, parts: JSON.stringify(m.parts), first_touch: m.first_touch ? 1 : 0 });
    },

    async get(tenantId: string, id: string): Promise<Message | undefined> {
      const r = await db.selectFrom('messages').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toMessage(r);
    },

    /** The chat of each of the tenant's messages among `ids` (one query; ids not found are absent). */
    async chatsOf(tenantId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('messages').select(['id', 'chat_id']).where('tenant_id', '=', tenantId).where('id', 'in', [...ids]).execute();
      return new Map(rows.map((r) => [r.id, r.chat_id]));
    },

    async byProviderGuid(lineId: string, guid: string): Promise<Message | undefined> {
      const r = await first(messageByGuidQ, db, { lineId, guid });
      return r && toMessage(r);
    },

    /** Whether any message of the chat, in any state, went out (or was to go out) on `lineId`. */
    async chatHasAnyOnLine(chatId: string, lineId: string): Promise<boolean> {
      const r = await db.selectFrom('messages').select('id').where('chat_id', '=', chatId).where('line_id', '=', lineId).limit(1).executeTakeFirst();
      return r !== undefined;
    },

    /** Whether the chat holds a message other than `exceptId` that is not failed (sent, under way, or received). */
    async chatHasOtherLive(chatId: string, exceptId: string): Promise<boolean> {
      const r = await db.selectFrom('messages').select('id').where('chat_id', '=', chatId).where('id', '!=', exceptId).where('status', '!=', 'failed').limit(1).executeTakeFirst();
      return r !== undefined;
    },

    /** Newest first; the cursor is the last row's (sent_at, id). */
    async listByChat(chatId: string, limit: number, before?: { sent_at: number; id: string }): Promise<Message[]> {
      let q = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
      if (before) {
        q = q.where((eb) =>
          eb.or([eb('sent_at', '<', before.sent_at), eb.and([eb('sent_at', '=', before.sent_at), eb('id', '<', before.id)])]),
        );
      }
      const rows = await q.orderBy('sent_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toMessage);
    },

    /** Outbound messages still `sending` (the line has not answered), oldest first. */
    async sending(limit: number): Promise<Message[]> {
      const rows = await db
        .selectFrom('messages')
        .selectAll()
        .where(SENDING_INDEXED)
        .where('status', '=', 'sending')
        .orderBy('sent_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toMessage);
    },

    /**
     * The line answered: the message went out as `guid`. A reconciliation that gave up on it
     * (`failed`) is corrected: the line's answer is the truth. Later states stay.
     */
    async markSent(id: string, guid: string): Promise<void> {
      await markSentQ(db, { id, guid });
    },

    /**
     * Settles a message still `sending`; false when something else settled it first. A failed one
     * may keep the guid the line holds it under (so no later lookup takes that message for another send).
     */
    async settleSending(id: string, patch: { status: 'sent'; provider_guid: string } | { status: 'failed'; error_code: number; provider_guid?: string }): Promise<boolean> {
      const r = await db.updateTable('messages').set(patch).where('id', '=', id).where('status', '=', 'sending').executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /**
     * The line reported that a message it had accepted failed after all: `failed` with `errorCode`,
     * unless a receipt moved it on (the later truth). An edit is our own doing, not a sign it was
     * delivered: an edited message no receipt reached fails too. False when not changed.
     */
    async failAfterSend(id: string, errorCode: number): Promise<boolean> {
      const r = await db
        .updateTable('messages')
        .set({ status: 'failed', error_code: errorCode })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('status', 'in', ['sending', 'sent']), eb.and([eb('status', '=', 'edited'), eb('delivered_at', 'is', null)])]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /** The line's message known by `from` is known by `to` from now on; false when there is none. */
    async renameProviderGuid(lineId: string, from: string, to: string): Promise<boolean> {
      const r = await db.updateTable('messages').set({ provider_guid: to }).where('line_id', '=', lineId).where('provider_guid', '=', from).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async update(id: string, patch: Partial<Pick<Message, 'status' | 'parts' | 'delivered_at' | 'read_at' | 'edited_at' | 'provider_guid' | 'error_code'>>) {
      const { parts, ...rest } = patch;
      await db
        .updateTable('messages')
        .set({ ...rest, ...(parts !== undefined && { parts: JSON.stringify(parts) }) })
        .where('id', '=', id)
        .execute();
    },

    /**
     * Applies delivery or read receipts of one kind from one line to the outbound messages with
     * their guids, a statement per batch: receipts can arrive together, and neither kind may undo
     * the other. A read implies delivery; a failed message stays failed. Resolves with the guids
     * that named such a message (the others name none yet, an inbound one or a failed one).
     */
    async applyReceipts(lineId: string, kind: 'delivered' | 'read', batch: readonly { guid: string; atMs: number }[]): Promise<Set<string>> {
      if (batch.length === 0) return new Set();
      if (dialect === 'postgres') {
        // A message once per statement: its first receipt, as if they had come one by one.
        const firsts = new Map<string, number>();
        for (const r of batch) if (!firsts.has(r.guid)) firsts.set(r.guid, r.atMs);
        const { rows } = await receiptBatch[kind](db, { lineId, guids: [...firsts.keys()], ats: [...firsts.values()] });
        return new Set(rows.map((r) => r.provider_guid));
      }
      // One group commit takes them all.
      const results = await Promise.all(batch.map((r) => receipt[kind](db, { lineId, guid: r.guid, atMs: r.atMs })));
      return new Set(batch.filter((_, i) => Number(results[i]!.numAffectedRows ?? 0) > 0).map((r) => r.guid));
    },

    /** First-touch sends from a line since `sinceMs`, and the latest one's time. */
    async firstTouchStats(lineId: string, sinceMs: number): Promise<{ count: number; lastAt: number | null }> {
      const r = await db
        .selectFrom('messages')
        .select([sql<number>`count(*)`.as('n'), sql<number | null>`max(sent_at)`.as('last')])
        .where('line_id', '=', lineId)
        .where(FIRST_TOUCH)
        .where('status', '!=', 'failed')
        .where('sent_at', '>=', sinceMs)
        .executeTakeFirst();
      return { count: Number(r?.n ?? 0), lastAt: r?.last == null ? null : Number(r.last) };
    },

    /** The latest first touch from a line at any time (for the 10-minute gap across days). */
    async lastFirstTouch(lineId: string): Promise<number | null> {
      const r = await db
        .selectFrom('messages')
        .select(sql<number | null>`max(sent_at)`.as('last'))
        .where('line_id', '=', lineId)
        .where(FIRST_TOUCH)
        .where('status', '!=', 'failed')
        .executeTakeFirst();
      return r?.last == null ? null : Number(r.last);
    },

    async tenantFirstTouches(tenantId: string, sinceMs: number): Promise<number> {
      const r = await db
        .selectFrom('messages')
        .select(sql<number>`count(*)`.as('n'))
        .where('tenant_id', '=', tenantId)
        .where(FIRST_TOUCH)
        .where('status', '!=', 'failed')
        .where('sent_at', '>=', sinceMs)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
  };
}

export type MessagesRepo = ReturnType<typeof messagesRepo>;
