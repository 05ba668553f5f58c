/** Leads, chats (direct and group) and group participants. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { columnsOf, first, inserted, prepared, preparedInsert } from './prepared.js';
import { LINE_COLUMNS, type PhoneLine } from './lines.js';

export type Lead = DB['leads'];

/** A direct chat (id = lead id) or a group (`ch_…`). */
export type Chat = Omit<DB['chats'], 'is_group'> & { is_group: boolean };

const toChat = (r: DB['chats']): Chat => ({ ...r, is_group: r.is_group === 1, created_at: Number(r.created_at), left_at: r.left_at == null ? null : Number(r.left_at) });

// The statements of an inbound message's lead, chat and participants, built once (prepared.ts).
const findLeadQ = prepared<{ tenantId: string; handle: string }, DB['leads']>(['tenantId', 'handle'], (db, p) =>
  db.selectFrom('leads').selectAll().where('tenant_id', '=', p.tenantId).where('handle', '=', p.handle),
);
const insertLeadQ = preparedInsert('leads', columnsOf<DB['leads']>({ id: true, tenant_id: true, handle: true, created_at: true }), ['tenant_id', 'handle']);
const getChatQ = prepared<{ tenantId: string; id: string }, DB['chats']>(['tenantId', 'id'], (db, p) =>
  db.selectFrom('chats').selectAll().where('tenant_id', '=', p.tenantId).where('id', '=', p.id),
);
const CHAT_COLUMNS = columnsOf<DB['chats']>({
  id: true, tenant_id: true, is_group: true, lead_id: true, line_id: true, convo_id: true, chat_key: true, display_name: true, created_at: true, left_at: true,
});
const insertChatQ = preparedInsert('chats', CHAT_COLUMNS, ['id']);
const participantsQ = prepared<{ chatId: string }, { handle: string }>(['chatId'], (db, p) =>
  db.selectFrom('chat_participants').select('handle').where('chat_id', '=', p.chatId).orderBy('added_at').orderBy('handle'),
);
const insertParticipantQ = preparedInsert('chat_participants', columnsOf<DB['chat_participants']>({ chat_id: true, handle: true, added_at: true }), [
  'chat_id',
  'handle',
]);

type ByHandle = { tenantId: string; handle: string };
/** A lead and its direct chat (chat id = lead id), by handle. */
const leadWithChat = (db: Kysely<DB>, p: ByHandle) =>
  db
    .selectFrom('leads as l')
    .innerJoin('chats as c', 'c.id', 'l.id')
    .selectAll('c')
    .select(['l.handle as lead_handle', 'l.created_at as lead_created_at'])
    .where('l.tenant_id', '=', p.tenantId)
    .where('l.handle', '=', p.handle);
const leadWithChatQ = prepared<ByHandle, DB['chats'] & { lead_handle: string; lead_created_at: number }>(['tenantId', 'handle'], leadWithChat);
/** The same, with the chat's line (its columns prefixed `l_`; null before the first message). */
const leadWithChatAndLineQ = prepared<ByHandle, Record<string, unknown>>(['tenantId', 'handle'], (db, p) =>
  leadWithChat(db, p)
    .leftJoin('phone_lines as pl', 'pl.id', 'c.line_id')
    .select(LINE_COLUMNS.map((c) => `pl.${c} as l_${c}` as const) as never),
);

/** `[column, alias]` pairs of a joined read, and the row of one table taken back out of it (per send: no per-call strings). */
const CHAT_FIELDS = CHAT_COLUMNS.map((c) => [c, c] as const);
const LINE_FIELDS = LINE_COLUMNS.map((c) => [c, `l_${c}`] as const);
function pick<T>(r: Record<string, unknown>, fields: readonly (readonly [string, string])[]): T {
  const out: Record<string, unknown> = {};
  for (const [column, alias] of fields) out[column] = r[alias];
  return out as T;
}

export function chatsRepo(db: Kysely<DB>, lineFromRow: (r: DB['phone_lines']) => PhoneLine) {
  return {
    async findLead(tenantId: string, handle: string): Promise<Lead | undefined> {
      const r = await first(findLeadQ, db, { tenantId, handle });
      return r && { ...r, created_at: Number(r.created_at) };
    },

    /** Find or create; `created` is true only for the call that inserted it (races included). */
    async upsertLead(lead: Lead): Promise<{ lead: Lead; created: boolean }> {
      const existing = await this.findLead(lead.tenant_id, lead.handle);
      if (existing) return { lead: existing, created: false };
      return this.createLead(lead);
    },

    /** Like upsertLead, but tries the insert first: for a lead that is most likely new. */
    async createLead(lead: Lead): Promise<{ lead: Lead; created: boolean }> {
      // ON CONFLICT rather than catching: a caught error would abort a PostgreSQL transaction.
      if (inserted(await insertLeadQ(db, lead))) return { lead, created: true };
      return { lead: (await this.findLead(lead.tenant_id, lead.handle))!, created: false };
    },

    /** A lead and its direct chat (chat id = lead id) in one query. */
    async findLeadWithChat(tenantId: string, handle: string): Promise<{ lead: Lead; chat: Chat } | undefined> {
      const r = await first(leadWithChatQ, db, { tenantId, handle });
      if (!r) return undefined;
      const { lead_handle, lead_created_at, ...chat } = r;
      return { lead: { id: chat.id, tenant_id: tenantId, handle: lead_handle, created_at: Number(lead_created_at) }, chat: toChat(chat) };
    },

    /** The same, with the line the chat is on (if any) in the same read: a send needs both. */
    async findLeadWithChatAndLine(tenantId: string, handle: string): Promise<{ lead: Lead; chat: Chat; line: PhoneLine | undefined } | undefined> {
      const r = await first(leadWithChatAndLineQ, db, { tenantId, handle });
      if (!r) return undefined;
      const chat = toChat(pick<DB['chats']>(r, CHAT_FIELDS));
      const line = r.l_id == null ? undefined : lineFromRow(pick<DB['phone_lines']>(r, LINE_FIELDS));
      return { lead: { id: chat.id, tenant_id: tenantId, handle: r.lead_handle as string, created_at: Number(r.lead_created_at) }, chat, line };
    },

    async getChat(tenantId: string, id: string): Promise<Chat | undefined> {
      const r = await first(getChatQ, db, { tenantId, id });
      return r && toChat(r);
    },

    /** Inserts unless a chat with that id exists; returns the stored chat. */
    async ensureChat(chat: Chat): Promise<Chat> {
      if (inserted(await insertChatQ(db, { ...chat, is_group: chat.is_group ? 1 : 0, left_at: chat.left_at ?? null }))) return chat;
      return (await this.getChat(chat.tenant_id, chat.id))!;
    },

    /** A group chat known by the provider's chat key on this tenant. */
    async chatByKey(tenantId: string, chatKey: string): Promise<Chat | undefined> {
      const r = await db.selectFrom('chats').selectAll().where('tenant_id', '=', tenantId).where('chat_key', '=', chatKey).executeTakeFirst();
      return r && toChat(r);
    },

    async pinLine(chatId: string, lineId: string, chatKey?: string): Promise<void> {
      await db
        .updateTable('chats')
        .set({ line_id: lineId, ...(chatKey !== undefined && { chat_key: chatKey }) })
        .where('id', '=', chatId)
        .execute();
    },

    /**
     * Pins a chat that has no line yet to `lineId`; false when another sender pinned it first.
     * Atomic in both dialects: what keeps two processes' first touches on one line.
     */
    async claimLine(chatId: string, lineId: string): Promise<boolean> {
      const r = await db.updateTable('chats').set({ line_id: lineId }).where('id', '=', chatId).where('line_id', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /**
     * Holds the chat's row until the transaction ends, so two transactions that each decide from
     * the chat's other messages run one after the other (PostgreSQL; SQLite's already do). An
     * update that changes nothing: both stores take it, where `for update` is PostgreSQL's only.
     */
    async hold(chatId: string): Promise<void> {
      await db.updateTable('chats').set({ line_id: sql`line_id` }).where('id', '=', chatId).execute();
    },

    /** Undoes claimLine (the first touch failed), unless the chat has moved on since. */
    async releaseLine(chatId: string, lineId: string): Promise<void> {
      await db.updateTable('chats').set({ line_id: null }).where('id', '=', chatId).where('line_id', '=', lineId).execute();
    },

    async participants(chatId: string): Promise<string[]> {
      return (await participantsQ(db, { chatId })).rows.map((r) => r.handle);
    },

    /** Adds if absent; false when it was already there. */
    async addParticipant(chatId: string, handle: string, at: number): Promise<boolean> {
      return inserted(await insertParticipantQ(db, { chat_id: chatId, handle, added_at: at }));
    },

    /** Removes if present; false when it was not there. */
    async removeParticipant(chatId: string, handle: string): Promise<boolean> {
      const r = await db.deleteFrom('chat_participants').where('chat_id', '=', chatId).where('handle', '=', handle).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async setDisplayName(chatId: string, displayName: string | null): Promise<void> {
      await db.updateTable('chats').set({ display_name: displayName }).where('id', '=', chatId).execute();
    },

    /** The line left the group: it keeps its history, takes no more messages (first leave wins). */
    async markLeft(chatId: string, at: number): Promise<void> {
      await db.updateTable('chats').set({ left_at: at }).where('id', '=', chatId).where('left_at', 'is', null).execute();
    },
  };
}

export type ChatsRepo = ReturnType<typeof chatsRepo>;
