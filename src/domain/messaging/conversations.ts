/** Leads and their direct chats: one lead per tenant and normalized handle. */
import type { Store, Chat, Lead, Tenant } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import { newUuid } from '../ids.js';

export interface DirectConversation {
  lead: Lead;
  leadCreated: boolean;
  chat: Chat;
}

export function conversations(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /** Finds or creates the lead and its direct chat (chat id = lead id). */
    async direct(tenant: Tenant, handle: string): Promise<DirectConversation> {
      const existing = await store.conversations.findLeadWithChat(tenant.id, handle);
      if (existing) return { ...existing, leadCreated: false };
      const now = clock.now();
      const { lead, created } = await store.conversations.createLead({ id: newUuid(), tenant_id: tenant.id, handle, created_at: now });
      const chat = await store.conversations.ensureChat({
        id: lead.id,
        tenant_id: tenant.id,
        is_group: false,
        lead_id: lead.id,
        line_id: null,
        convo_id: newUuid(),
        chat_key: null,
        display_name: null,
        created_at: now,
      });
      await store.conversations.addParticipant(chat.id, handle, now);
      return { lead, leadCreated: created, chat };
    },
  };
}
