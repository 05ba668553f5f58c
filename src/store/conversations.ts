/** Leads, chats (direct and group) and group participants. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export type Lead = DB['leads'];

/** A direct chat (id = lead id) or a group (`ch_…`). */
export type Chat = Omit<DB['chats'], 'is_group'> & { is_group: boolean };

const toChat = (r: DB['chats']): Chat => ({ ...r, is_group: r.is_group === 1, created_at: Number(r.created_at) });

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function conversationsRepo(db: Kysely<DB>) {
  return {
    async findLead(tenantId: string, handle: string): Promise<Lead | undefined> {
      const r = await db.selectFrom('leads').selectAll().where('tenant_id', '=', tenantId).where('handle', '=', handle).executeTakeFirst();
      return r && { ...r, created_at: Number(r.created_at) };
    },

    /** Find or create; `created` is true only for the call that inserted it (races included). */
    async upsertLead(lead: Lead): Promise<{ lead: Lead; created: boolean }> {
      const existing = await this.findLead(lead.tenant_id, lead.handle);
      if (existing) return { lead: existing, created: false };
      // ON CONFLICT rather than catching: a caught error would abort a PostgreSQL transaction.
      const r = await db.insertInto('leads').values(lead).onConflict((oc) => oc.columns(['tenant_id', 'handle']).doNothing()).executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0) > 0) return { lead, created: true };
      return { lead: (await this.findLead(lead.tenant_id, lead.handle))!, created: false };
    },

    /** A lead and its direct chat (chat id = lead id) in one query. */
    async findLeadWithChat(tenantId: string, handle: string): Promise<{ lead: Lead; chat: Chat } | undefined> {
      const r = await db
        .selectFrom('leads as l')
        .innerJoin('chats as c', 'c.id', 'l.id')
        .selectAll('c')
        .select(['l.handle as lead_handle', 'l.created_at as lead_created_at'])
        .where('l.tenant_id', '=', tenantId)
        .where('l.handle', '=', handle)
        .executeTakeFirst();
      if (!r) return undefined;
      const { lead_handle, lead_created_at, ...chat } = r;
      return { lead: { id: chat.id, tenant_id: tenantId, handle: lead_handle, created_at: Number(lead_created_at) }, chat: toChat(chat) };
    },

    async getChat(tenantId: string, id: string): Promise<Chat | undefined> {
      const r = await db.selectFrom('chats').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toChat(r);
    },

    /** Inserts unless a chat with that id exists; returns the stored chat. */
    async ensureChat(chat: Chat): Promise<Chat> {
      const r = await db
        .insertInto('chats')
        .values({ ...chat, is_group: chat.is_group ? 1 : 0 })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0) > 0) return chat;
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

    async participants(chatId: string): Promise<string[]> {
      const rows = await db.selectFrom('chat_participants').select('handle').where('chat_id', '=', chatId).orderBy('added_at').orderBy('handle').execute();
      return rows.map((r) => r.handle);
    },

    /** Adds if absent; false when it was already there. */
    async addParticipant(chatId: string, handle: string, at: number): Promise<boolean> {
      const r = await db
        .insertInto('chat_participants')
        .values({ chat_id: chatId, handle, added_at: at })
        .onConflict((oc) => oc.columns(['chat_id', 'handle']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
  };
}

export type ConversationsRepo = ReturnType<typeof conversationsRepo>;
export { isUniqueViolation };
