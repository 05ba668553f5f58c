/**
 * What drivers report: delivery/read receipts update outbound messages, and
 * inbound messages are stored in their chat (the inbound area adds events and
 * webhooks on top of this).
 */
import type { DriverEvents, InboundMessage } from '../../drivers/types.js';
import type { Store, Chat } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import { newUuid, randomHex } from '../ids.js';
import { newMessageId } from './outbound.js';
import { conversations } from './conversations.js';

export function lineEvents(deps: { store: Store; clock: Clock }): DriverEvents {
  const { store, clock } = deps;
  const convos = conversations(deps);

  async function chatFor(tenant: Parameters<typeof convos.direct>[0], lineId: string, msg: InboundMessage): Promise<Chat> {
    if (!msg.group) {
      const { chat } = await convos.direct(tenant, msg.from);
      if (!chat.line_id) await store.conversations.pinLine(chat.id, lineId);
      return { ...chat, line_id: chat.line_id ?? lineId };
    }
    const now = clock.now();
    const chat = await store.conversations.ensureChat({
      id: `ch_${randomHex(16)}`, tenant_id: tenant.id, is_group: true, lead_id: null, line_id: lineId, convo_id: newUuid(),
      chat_key: msg.group.chatKey, display_name: msg.group.displayName ?? null, created_at: now,
    });
    for (const h of msg.group.handles) await store.conversations.addParticipant(chat.id, h, now);
    return chat;
  }

  return {
    async receipt(lineId, guid, kind, atMs) {
      const m = await store.messages.byProviderGuid(lineId, guid);
      if (!m || m.direction !== 'outbound' || m.status === 'failed') return;
      if (kind === 'delivered' && m.delivered_at === null) {
        await store.messages.update(m.id, { status: m.status === 'read' ? 'read' : 'delivered', delivered_at: atMs });
      } else if (kind === 'read' && m.read_at === null) {
        await store.messages.update(m.id, { status: 'read', read_at: atMs, delivered_at: m.delivered_at ?? atMs });
      }
    },

    async inbound(lineId, msg) {
      const line = await store.lines.get(lineId);
      if (!line) return;
      if (await store.messages.byProviderGuid(lineId, msg.guid)) return; // reported twice
      const tenant = (await store.tenants.getById(line.tenant_id))!;
      const chat = await chatFor(tenant, lineId, msg);
      await store.messages.insert({
        id: newMessageId(msg.sentAt),
        tenant_id: tenant.id,
        chat_id: chat.id,
        line_id: lineId,
        direction: 'inbound',
        sender_handle: msg.from,
        parts: msg.parts.map((p) => (p.type === 'text' ? p : { type: 'media' as const, attachment_id: '', filename: p.filename, mime_type: p.mimeType, size_bytes: p.bytes.length })),
        effect: null,
        status: 'received',
        provider_guid: msg.guid,
        first_touch: false,
        error_code: null,
        sent_at: msg.sentAt,
        delivered_at: msg.sentAt,
        read_at: null,
        edited_at: null,
      });
    },
  };
}
