/**
 * The envelopes of the status events: what happened to a message. `message.sent`,
 * `message.delivered`, `message.read`, `message.failed` for one the project sent;
 * `message.reacted` for a tapback a line reported on any message of the chat; `message.edited`
 * for a contact's edit of a message they sent.
 * Their wire shape is src/contract/webhook-message-status.ts. The common fields are
 * message.received's; data.message is the message resource as GET /api/v1/messages/{id} shows it.
 */
import type { Chat, Message, PhoneLine, Tenant } from '../../store/index.js';
import type { LineReaction } from '../../drivers/types.js';
import { isoAt } from '../../clock.js';
import { messageView } from '../messaging/message-view.js';
import { EVENT_NAMESPACE, deepLink, envelopeHead, handle } from './envelope.js';
import type { StatusEventType } from './vocabulary.js';

/**
 * One per message and type: a message is sent, delivered, read or failed once. A tapback, which
 * a person may put on, take off and put on again, by its sender, tapback and time as the line
 * reported them; an edit (a message may be edited several times) by its time. The same report
 * made twice is one event.
 */
export const statusEventId = (type: StatusEventType, message: Pick<Message, 'id' | 'edited_at'>, reaction?: Pick<LineReaction, 'from' | 'reaction' | 'remove' | 'atMs'>) =>
  `${EVENT_NAMESPACE}:${type.slice('message.'.length)}:${message.id}` +
  (reaction ? `:${reaction.from ?? 'me'}:${reaction.remove ? '-' : ''}${reaction.reaction}:${reaction.atMs}` : '') +
  (type === 'message.edited' ? `:${message.edited_at}` : '');

export function statusEnvelope(args: {
  type: StatusEventType;
  tenant: Pick<Tenant, 'slug'>;
  line: Pick<PhoneLine, 'phone_number'>;
  chat: Pick<Chat, 'id' | 'is_group'>;
  participants: string[];
  message: Message;
  /** message.reacted's tapback */
  reaction?: LineReaction;
  traceId: string;
  nowMs: number;
  deepLinkTemplate: string;
}) {
  const { type, tenant, line, chat, message, reaction } = args;
  return {
    ...envelopeHead(type, statusEventId(type, message, reaction), { traceId: args.traceId, nowMs: args.nowMs, tenantSlug: tenant.slug }),
    data: {
      chat: {
        id: chat.id,
        is_group: chat.is_group,
        // The recipients, then the sending line.
        handles: args.participants.filter((h) => h !== line.phone_number).map((h) => handle(h, false)).concat(handle(line.phone_number, true)),
        owner_handle: handle(line.phone_number, true),
      },
      message: messageView(message),
      ...(reaction && {
        reaction: {
          reaction: reaction.reaction,
          removed: reaction.remove,
          // A tapback made on the line's Mac is the line's own.
          from: reaction.from === null ? handle(line.phone_number, true) : handle(reaction.from, false),
          at: isoAt(reaction.atMs),
        },
      }),
      crm_deep_link: deepLink(args.deepLinkTemplate, chat.id, tenant.slug),
    },
  };
}
