/** Leads and their direct chats: one lead per tenant and normalized handle. */
import type { Store, Repos, Chat, Lead, Tenant, PhoneLine } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import { newUuid } from '../ids.js';

export interface DirectChat {
  lead: Lead;
  leadCreated: boolean;
  chat: Chat;
  /** The line the chat is on, when it was read with the chat. */
  line?: PhoneLine;
}

/**
 * Finds or creates a lead and its direct chat (chat id = lead id) through the given repositories
 * (the store, or a transaction's). A returning contact costs one read; a new chat starts on `lineId`.
 */
export async function findOrCreateDirect(repos: Pick<Repos, 'chats'>, tenantId: string, handle: string, now: number, lineId: string | null): Promise<DirectChat> {
  return (await findDirect(repos, tenantId, handle)) ?? createDirect(repos, tenantId, handle, now, lineId);
}

/** The lead and its direct chat (chat id = lead id), if the tenant has talked to `handle`: one read. */
async function findDirect(repos: Pick<Repos, 'chats'>, tenantId: string, handle: string): Promise<DirectChat | undefined> {
  const found = await repos.chats.findLeadWithChat(tenantId, handle);
  return found && { ...found, leadCreated: false };
}

/**
 * Creates the lead and its direct chat for a handle just found to have none. A concurrent
 * request may have created them meanwhile: the lead is then theirs (`leadCreated` false).
 */
async function createDirect(
  repos: Pick<Repos, 'chats'>,
  tenantId: string,
  handle: string,
  now: number,
  lineId: string | null,
): Promise<DirectChat> {
  const { lead, created } = await repos.chats.createLead({ id: newUuid(), tenant_id: tenantId, handle, created_at: now });
  const chat = await repos.chats.ensureChat({
    id: lead.id,
    tenant_id: tenantId,
    is_group: false,
    lead_id: lead.id,
    line_id: lineId,
    convo_id: newUuid(),
    chat_key: null,
    display_name: null,
    created_at: now,
  });
  await repos.chats.addParticipant(chat.id, handle, now);
  return { lead, leadCreated: created, chat };
}

export function directChats(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /** The lead, its direct chat and the chat's line, if the tenant has talked to `handle`: one read. */
    find: async (tenant: Tenant, handle: string): Promise<DirectChat | undefined> => {
      const found = await store.chats.findLeadWithChatAndLine(tenant.id, handle);
      return found && { ...found, leadCreated: false };
    },
    /** Creates them, once `find` said there were none (and the request passed every check). */
    create: (tenant: Tenant, handle: string): Promise<DirectChat> => createDirect(store, tenant.id, handle, clock.now(), null),
  };
}
