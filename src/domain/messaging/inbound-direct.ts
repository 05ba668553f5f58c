/**
 * A direct inbound text message recorded on PostgreSQL in one statement (store/inbound-direct.ts
 * says how it stays atomic): its two reads leave together, outside a transaction, then one write.
 * Two round trips where the transaction takes a dozen. Anything else (groups, media, SQLite,
 * a lead another request created meanwhile) goes through the transaction in line-events.ts.
 */
import type { InboundMessage } from '../../drivers/types.js';
import type { Chat, Store, Tenant } from '../../store/index.js';
import type { InboundPart } from '../events/envelope.js';
import { newUuid } from '../ids.js';
import { inboundRecord } from './inbound-record.js';

/** The tenant it was recorded for; null when there was nothing to record (unknown line, reported twice); 'fallback' to use the transaction. */
export type DirectOutcome = Tenant | null | 'fallback';

export async function recordDirectInbound(
  deps: { store: Store; deepLinkTemplate: string },
  lineId: string,
  msg: InboundMessage,
  parts: InboundPart[],
  now: number,
): Promise<DirectOutcome> {
  const { store } = deps;
  // Both leave in the same write (pg-pipeline.ts): one round trip.
  const [owned, { seen, direct: found, subscriptions }] = await Promise.all([
    store.lines.getWithTenant(lineId),
    store.inboundDirect.read(lineId, msg.guid, msg.from),
  ]);
  if (!owned || seen) return null;
  const { line, tenant } = owned;
  // As in the transaction: a new contact's chat is its lead's id, on this line; a returning one's follows this line.
  const lead = found?.lead ?? { id: newUuid(), tenant_id: tenant.id, handle: msg.from, created_at: now };
  const convoId = found?.chat.convo_id ?? newUuid();
  const chat: Chat = found
    ? { ...found.chat, line_id: lineId }
    : { id: lead.id, tenant_id: tenant.id, is_group: false, lead_id: lead.id, line_id: lineId, convo_id: convoId, chat_key: null, display_name: null, created_at: now, left_at: null };
  const { message, event, jobs } = inboundRecord({
    tenant, line, chat, leadId: lead.id, participants: [msg.from], msg, parts, subscriptions, nowMs: now, deepLinkTemplate: deps.deepLinkTemplate,
  });
  const outcome = await store.inboundDirect.write({
    ...(!found && { newContact: { lead, convoId } }),
    chatId: chat.id,
    lineId,
    handle: msg.from,
    event,
    message: { ...message, parts: JSON.stringify(message.parts), first_touch: 0 },
    jobs,
  });
  if (outcome === 'contended') return 'fallback';
  return outcome === 'recorded' ? tenant : null;
}
